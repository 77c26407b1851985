#include "options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>

#include "p2b/config.hpp"

namespace p2b::analyzer {

namespace {

// Every setting by name; `flag` ones take no value on the command line.
struct Setting {
  const char* name;
  bool flag;
};
constexpr Setting kSettings[] = {
    {"listen", false},      {"keys", false},   {"codebook", false}, {"store", false},
    {"actions", false},     {"lambda", false}, {"mode", false},     {"enable-raw-baseline", true},
    {"min-reports", false},
};

const Setting* find_setting(const std::string& name) {
  for (const Setting& s : kSettings) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

using Values = std::map<std::string, std::vector<std::string>>;

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool read_config(const std::string& path, Values* out, std::string* err) {
  std::ifstream in(path);
  if (!in) {
    *err = path + ": cannot read config file";
    return false;
  }
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    const auto eq = t.find('=');
    const std::string where = path + ":" + std::to_string(n) + ": ";
    if (eq == std::string::npos) {
      *err = where + "expected key = value";
      return false;
    }
    const std::string key = trim(t.substr(0, eq));
    if (find_setting(key) == nullptr) {
      *err = where;
      *err += "unknown setting '";
      *err += key;
      *err += "'";
      return false;
    }
    (*out)[key].push_back(trim(t.substr(eq + 1)));
  }
  return true;
}

bool parse_u64(const std::string& s, uint64_t max, uint64_t* out) {
  if (s.empty() || s[0] < '0' || s[0] > '9') return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v > max) return false;
  *out = v;
  return true;
}

bool parse_bool(const std::string& s, bool* out) {
  if (s == "true" || s == "1" || s == "yes" || s == "on") {
    *out = true;
  } else if (s == "false" || s == "0" || s == "no" || s == "off") {
    *out = false;
  } else {
    return false;
  }
  return true;
}

bool parse_listen(const std::string& s, Options* o) {
  const auto colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  std::string host = s.substr(0, colon);
  // [::1]:8720 names an IPv6 host.
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  uint64_t port = 0;
  if (!parse_u64(s.substr(colon + 1), 65535, &port)) return false;
  o->host = host;
  o->port = static_cast<uint16_t>(port);
  return true;
}

bool apply(const Values& values, Options* o, std::string* err) {
  const auto last = [&](const char* name) -> const std::string* {
    const auto it = values.find(name);
    return it == values.end() || it->second.empty() ? nullptr : &it->second.back();
  };
  const auto bad = [&](const char* name, const std::string& why) {
    *err = std::string("--") + name + ": " + why;
    return false;
  };
  if (const std::string* v = last("listen"); v != nullptr && !parse_listen(*v, o)) {
    return bad("listen", "expected HOST:PORT with a port in 0..65535, got '" + *v + "'");
  }
  if (const auto it = values.find("keys"); it != values.end()) o->key_dirs = it->second;
  if (const std::string* v = last("codebook")) o->codebook = *v;
  if (const std::string* v = last("store")) o->store = *v;
  if (const std::string* v = last("actions")) {
    uint64_t k = 0;
    if (!parse_u64(*v, kMaxActions, &k) || k == 0) {
      return bad("actions", "expected 1.." + std::to_string(kMaxActions) + ", got '" + *v + "'");
    }
    o->n_actions = static_cast<uint32_t>(k);
  }
  if (const std::string* v = last("lambda")) {
    char* end = nullptr;
    const double l = std::strtod(v->c_str(), &end);
    // The device's own range for ridge_lambda, so every model it gets fits.
    if (v->empty() || *end != '\0' || !std::isfinite(l) || l < 1e-6 || l > 1e6) {
      return bad("lambda", "expected a number in [1e-6, 1e6], got '" + *v + "'");
    }
    o->lambda = l;
  }
  if (const std::string* v = last("mode"); v != nullptr && !parse_mode(*v, &o->mode)) {
    return bad("mode", "expected default or paper, got '" + *v + "'");
  }
  if (const std::string* v = last("enable-raw-baseline");
      v != nullptr && !parse_bool(*v, &o->raw_enabled)) {
    return bad("enable-raw-baseline", "expected true or false, got '" + *v + "'");
  }
  if (const std::string* v = last("min-reports");
      v != nullptr && !parse_u64(*v, UINT64_MAX, &o->min_reports)) {
    return bad("min-reports", "expected a count of reports, got '" + *v + "'");
  }
  for (const std::string& d : o->key_dirs) {
    if (d.empty()) return bad("keys", "empty directory name");
  }
  if (o->key_dirs.empty()) return bad("keys", "required");
  if (o->codebook.empty()) return bad("codebook", "required");
  if (o->store.empty()) return bad("store", "required");
  if (o->n_actions == 0) return bad("actions", "required");
  return true;
}

}  // namespace

std::string usage_text() {
  return "usage: p2b-analyzer --keys DIR [--keys DIR ...] --codebook FILE --store PATH\n"
         "                    --actions K [--listen HOST:PORT] [--lambda X]\n"
         "                    [--mode default|paper] [--enable-raw-baseline] [--min-reports N]\n"
         "                    [--config FILE]\n"
         "  --listen HOST:PORT      default 127.0.0.1:8720; port 0 picks a free port\n"
         "  --keys DIR              analyzer.box.{pk,sk}; repeat to rotate, the last signs\n"
         "  --codebook FILE         the devices' codebook; its fingerprint is in every model\n"
         "  --store PATH            SQLite database (created if missing)\n"
         "  --actions K             number of actions\n"
         "  --lambda X              ridge prior, default 1\n"
         "  --mode default|paper    centroid contexts (default) or the paper's scalar code\n"
         "  --enable-raw-baseline   serve POST /v1/raw (non-private, experiments only)\n"
         "  --min-reports N         withhold the private model until N reports back it (0)\n"
         "  --config FILE           key = value lines, names as above without dashes\n";
}

ParseOutcome parse_options(int argc, const char* const* argv, Options* out, std::string* err) {
  Values cli;
  std::string config;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return ParseOutcome::help;
    if (arg.rfind("--", 0) != 0) {
      *err = "unexpected argument '" + arg + "'";
      return ParseOutcome::error;
    }
    arg = arg.substr(2);
    std::string value;
    bool has_value = false;
    if (const auto eq = arg.find('='); eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    const Setting* s = find_setting(arg);
    if (s == nullptr && arg != "config") {
      *err = "unknown option '--" + arg + "'";
      return ParseOutcome::error;
    }
    if (s != nullptr && s->flag) {
      cli[arg].push_back(has_value ? value : "true");
      continue;
    }
    if (!has_value) {
      if (i + 1 >= argc) {
        *err = "--" + arg + " needs a value";
        return ParseOutcome::error;
      }
      value = argv[++i];
    }
    if (arg == "config") {
      if (!config.empty()) {
        *err = "--config given twice";
        return ParseOutcome::error;
      }
      config = value;
    } else {
      cli[arg].push_back(value);
    }
  }
  Values merged;
  if (!config.empty() && !read_config(config, &merged, err)) return ParseOutcome::error;
  // A flag replaces the file's value; for repeated `keys`, the whole list.
  for (auto& [name, values] : cli) merged[name] = std::move(values);
  Options o;
  if (!apply(merged, &o, err)) return ParseOutcome::error;
  *out = std::move(o);
  return ParseOutcome::ok;
}

}  // namespace p2b::analyzer
