#include "shuffler/options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <utility>

#include "p2b/envelope.hpp"
#include "shuffler/analyzer_sink.hpp"
#include "wire/batch_format.hpp"

namespace p2b::shuffler {

namespace {

// Name -> values in the order given; later single values win.
using Settings = std::vector<std::pair<std::string, std::string>>;

const char* const kNames[] = {"listen",     "keys",          "spool",     "analyzer",
                              "batch-size", "batch-seconds", "threshold", "noisy-threshold",
                              "max-body",   "config"};

bool known(const std::string& name) {
  for (const char* k : kNames) {
    if (name == k) return true;
  }
  return false;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

bool parse_size(const std::string& v, std::size_t lo, std::size_t hi, std::size_t* out) {
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  const unsigned long long x = std::strtoull(v.c_str(), nullptr, 10);
  if (errno != 0 || x < lo || x > hi) return false;
  *out = static_cast<std::size_t>(x);
  return true;
}

bool parse_real(const std::string& v, double lo, double hi, double* out) {
  if (v.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(v.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(x) || x < lo || x > hi) return false;
  *out = x;
  return true;
}

bool parse_listen(const std::string& v, Options* o) {
  const auto colon = v.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  std::string host = v.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  std::size_t port = 0;
  if (!parse_size(v.substr(colon + 1), 0, 65535, &port)) return false;
  o->listen_host = host;
  o->listen_port = static_cast<int>(port);
  return true;
}

// Applies one setting; false with `error` set if its value is invalid.
bool apply(const std::string& name, const std::string& value, Options* o, std::string* error) {
  bool ok = true;
  if (name == "listen") {
    ok = parse_listen(value, o);
  } else if (name == "keys") {
    ok = !value.empty();
    o->key_dirs.push_back(value);
  } else if (name == "spool") {
    ok = !value.empty();
    o->spool = value;
  } else if (name == "analyzer") {
    ok = valid_analyzer_url(value);
    o->analyzer = value;
  } else if (name == "batch-size") {
    ok = parse_size(value, 1, server::kMaxBatchRecords, &o->batch_size);
  } else if (name == "batch-seconds") {
    ok = parse_real(value, 0.001, 86400, &o->batch_seconds);
  } else if (name == "threshold") {
    ok = parse_size(value, 1, 1u << 30, &o->threshold);
  } else if (name == "noisy-threshold") {
    ok = parse_real(value, 0, 1e6, &o->noisy_threshold);
  } else if (name == "max-body") {
    ok = parse_size(value, kEnvelopeBytes, std::size_t{1} << 30, &o->max_body);
  }
  if (!ok) *error = "invalid value for --" + name + ": '" + value + "'";
  return ok;
}

ParseOutcome read_config(const std::string& path, Settings* out, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read config file " + path;
    return ParseOutcome::io_error;
  }
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    const auto eq = t.find('=');
    std::string key = eq == std::string::npos ? t : trim(t.substr(0, eq));
    for (char& c : key) c = c == '_' ? '-' : c;  // batch_size reads as batch-size
    if (eq == std::string::npos || !known(key) || key == "config") {
      *error = path + ":" + std::to_string(lineno) + ": expected 'name = value' with a known name";
      return ParseOutcome::usage_error;
    }
    out->emplace_back(key, trim(t.substr(eq + 1)));
  }
  return ParseOutcome::ok;
}

}  // namespace

const char* usage_text() {
  return "usage: p2b-shuffler --keys DIR [--keys DIR ...] --spool PATH --analyzer URL\n"
         "                    [--listen HOST:PORT] [--batch-size N] [--batch-seconds T]\n"
         "                    [--threshold L] [--noisy-threshold SIGMA] [--max-body BYTES]\n"
         "                    [--config FILE]\n"
         "  --listen HOST:PORT       default 127.0.0.1:8710; port 0 picks a free port\n"
         "  --keys DIR               DIR/shuffler.box.{pk,sk}; repeat to accept several keys\n"
         "  --spool PATH             SQLite spool file, created if missing\n"
         "  --analyzer URL           batches go to URL/v1/batches\n"
         "  --batch-size N           close a batch after N records (default 1000)\n"
         "  --batch-seconds T        ... or after T seconds (default 10)\n"
         "  --threshold L            drop crowds with fewer than L records in a batch (10)\n"
         "  --noisy-threshold SIGMA  Gaussian noise on the crowd counts (default 0: off)\n"
         "  --max-body BYTES         largest POST /v1/reports body (default 262144)\n"
         "  --config FILE            'name = value' lines; flags override them\n";
}

ParseOutcome parse_options(int argc, const char* const* argv, Options* out, std::string* error) {
  Settings flags;
  std::string config;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return ParseOutcome::help;
    if (arg.rfind("--", 0) != 0) {
      *error = "unexpected argument '" + arg + "'";
      return ParseOutcome::usage_error;
    }
    std::string value;
    const auto eq = arg.find('=');
    std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    if (!known(name)) {
      *error = "unknown flag --" + name;
      return ParseOutcome::usage_error;
    }
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      *error = "--" + name + " needs a value";
      return ParseOutcome::usage_error;
    }
    if (name == "config") {
      config = value;
    } else {
      flags.emplace_back(name, value);
    }
  }

  Settings settings;
  if (!config.empty()) {
    const ParseOutcome r = read_config(config, &settings, error);
    if (r != ParseOutcome::ok) return r;
  }
  // A list given on the command line replaces the file's list.
  bool flag_keys = false;
  for (const auto& [name, value] : flags) flag_keys = flag_keys || name == "keys";
  if (flag_keys) {
    Settings kept;
    for (auto& s : settings) {
      if (s.first != "keys") kept.push_back(std::move(s));
    }
    settings = std::move(kept);
  }
  settings.insert(settings.end(), flags.begin(), flags.end());

  Options o;
  for (const auto& [name, value] : settings) {
    if (!apply(name, value, &o, error)) return ParseOutcome::usage_error;
  }
  if (o.key_dirs.empty() || o.spool.empty() || o.analyzer.empty()) {
    *error = "--keys, --spool and --analyzer are required";
    return ParseOutcome::usage_error;
  }
  *out = std::move(o);
  return ParseOutcome::ok;
}

}  // namespace p2b::shuffler
