// The shared command line: the settings every service spells alike, the
// --config file (TOML: arrays for lists, `_` for `-`, flags override it),
// --version and --help (one usage line, value names), and refusals, which
// name the config file's line and key and echo no unprintable byte.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/service_options.hpp"
#include "common/toml_config.hpp"
#include "p2b.h"

namespace {

namespace fs = std::filesystem;
using p2b::common::ParseOutcome;
using p2b::common::ServiceOptions;

struct Parsed {
  ParseOutcome outcome = ParseOutcome::usage_error;
  ServiceOptions options;
  std::string message;
  std::string extra;  // --color, a service-specific value
};

p2b::common::ServiceDefaults defaults() {
  p2b::common::ServiceDefaults d;
  d.listen_port = 8710;
  d.store_alias = "spool";
  d.max_body = 1000;
  d.min_body = 10;
  d.max_max_body = 5000;
  return d;
}

Parsed parse(const std::vector<std::string>& args,
             const p2b::common::ServiceDefaults& d = defaults()) {
  p2b::common::ServiceCommandLine cli("p2b-test", "usage: p2b-test ...", "A test.", d);
  Parsed p;
  cli.command_line().add_value("--color", &p.extra, "a service's own value");
  std::vector<const char*> argv = {"p2b-test"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  p.outcome = cli.parse(static_cast<int>(argv.size()), argv.data(), &p.options, &p.message);
  return p;
}

std::string write_file(const std::string& name, const std::string& text) {
  std::string path = (fs::temp_directory_path() / (name + std::to_string(getpid()))).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The one line an operator sees for a refusal (report_parse_outcome's).
std::string shown(const Parsed& p) {
  return p2b::common::escape_unprintable(p2b::common::locate_config_value(p.message));
}

bool printable_line(const std::string& text) {
  for (const char c : text) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return !text.empty();
}

TEST(CommonServiceOptions, DefaultsAndEveryFlag) {
  Parsed p = parse({"--keys", "k", "--store", "s.db"});
  ASSERT_EQ(p.outcome, ParseOutcome::ok) << p.message;
  EXPECT_EQ(p.options.listen_host, "127.0.0.1");
  EXPECT_EQ(p.options.listen_port, 8710);
  EXPECT_EQ(p.options.max_body, 1000u);
  EXPECT_EQ(p.options.log_level, p2b::common::LogLevel::info);
  p = parse({"--listen", "[::1]:0", "--keys", "a", "--keys=b", "--spool", "old.db", "--max-body",
             "4000", "--log-level", "debug", "--color", "red"});
  ASSERT_EQ(p.outcome, ParseOutcome::ok) << p.message;
  EXPECT_EQ(p.options.listen_host, "::1");
  EXPECT_EQ(p.options.listen_port, 0);
  EXPECT_EQ(p.options.key_dirs, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p.options.store, "old.db") << "--spool is an alias of --store";
  EXPECT_EQ(p.options.max_body, 4000u);
  EXPECT_EQ(p.options.log_level, p2b::common::LogLevel::debug);
  EXPECT_EQ(p.extra, "red");
}

// A service without keys (the relay) has no --keys; one that may run in
// memory needs no --store; one that derives its body limit sees 0 when
// --max-body is not given, and says so in its own help text.
TEST(CommonServiceOptions, KeysStoreAndMaxBodyAreOptionalWhereAServiceSaysSo) {
  p2b::common::ServiceDefaults d = defaults();
  d.keys = false;
  d.store_required = false;
  d.max_body = 0;
  d.max_body_help = "derived from the deployment";
  Parsed p = parse({}, d);
  ASSERT_EQ(p.outcome, ParseOutcome::ok) << p.message;
  EXPECT_TRUE(p.options.key_dirs.empty());
  EXPECT_TRUE(p.options.store.empty());
  EXPECT_EQ(p.options.max_body, 0u);
  p = parse({"--keys", "k"}, d);
  EXPECT_EQ(p.outcome, ParseOutcome::usage_error) << "no --keys flag at all";
  p = parse({"--help"}, d);
  ASSERT_EQ(p.outcome, ParseOutcome::help);
  EXPECT_NE(p.message.find("derived from the deployment"), std::string::npos);
  EXPECT_EQ(p.message.find("--keys"), std::string::npos);
}

TEST(CommonServiceOptions, HttpLimits) {
  Parsed p = parse({"--keys", "k", "--store", "s"});
  ASSERT_EQ(p.outcome, ParseOutcome::ok) << p.message;
  EXPECT_EQ(p.options.http.max_connections, 512U);
  EXPECT_EQ(p.options.http.request_seconds, 30.0);
  EXPECT_EQ(p.options.http.idle_seconds, 5.0);
  EXPECT_EQ(p.options.http.max_headers, 64U);
  EXPECT_EQ(p.options.http.max_head_bytes, 16384U);
  EXPECT_EQ(p.options.http.drain_seconds, 5.0);
  p = parse({"--keys", "k", "--store", "s", "--max-connections", "300", "--request-timeout", "2.5",
             "--idle-timeout", "0.5", "--max-headers", "10", "--max-header-bytes", "4096",
             "--drain-timeout", "0"});
  ASSERT_EQ(p.outcome, ParseOutcome::ok) << p.message;
  EXPECT_EQ(p.options.http.max_connections, 300U);
  EXPECT_EQ(p.options.http.request_seconds, 2.5);
  EXPECT_EQ(p.options.http.idle_seconds, 0.5);
  EXPECT_EQ(p.options.http.max_headers, 10U);
  EXPECT_EQ(p.options.http.max_head_bytes, 4096U);
  EXPECT_EQ(p.options.http.drain_seconds, 0.0);
  const std::string path = write_file("p2b-http.conf",
                                      "keys = \"k\"\nstore = \"s\"\nmax_connections = 7\n"
                                      "idle_timeout = 9\n");
  p = parse({"--config", path});
  ASSERT_EQ(p.outcome, ParseOutcome::ok) << p.message;
  EXPECT_EQ(p.options.http.max_connections, 7U);
  EXPECT_EQ(p.options.http.idle_seconds, 9.0);
  std::remove(path.c_str());
  for (const std::vector<std::string>& bad :
       std::vector<std::vector<std::string>>{{"--max-connections", "0"},
                                             {"--max-connections", "65537"},
                                             {"--request-timeout", "0"},
                                             {"--request-timeout", "nan"},
                                             {"--idle-timeout", "3601"},
                                             {"--max-headers", "0"},
                                             {"--max-header-bytes", "1023"},
                                             {"--max-header-bytes", "1048577"},
                                             {"--drain-timeout", "-1"},
                                             {"--drain-timeout", "3601"}}) {
    std::vector<std::string> args = {"--keys", "k", "--store", "s"};
    args.insert(args.end(), bad.begin(), bad.end());
    p = parse(args);
    EXPECT_EQ(p.outcome, ParseOutcome::usage_error) << bad[0] << " " << bad[1];
    EXPECT_NE(p.message.find(bad[0].substr(2)), std::string::npos) << p.message;
  }
}

TEST(CommonServiceOptions, LogFileAndAccessLog) {
  Parsed p = parse({"--keys", "k", "--store", "s"});
  ASSERT_EQ(p.outcome, ParseOutcome::ok) << p.message;
  EXPECT_EQ(p.options.log_file, "") << "stderr by default";
  EXPECT_EQ(p.options.access_log, p2b::common::AccessLog::standard);
  const std::vector<std::pair<std::string, p2b::common::AccessLog>> modes = {
      {"all", p2b::common::AccessLog::all},
      {"default", p2b::common::AccessLog::standard},
      {"off", p2b::common::AccessLog::off}};
  for (const auto& [name, mode] : modes) {
    p = parse({"--keys", "k", "--store", "s", "--access-log", name, "--log-file", "/var/log/x"});
    ASSERT_EQ(p.outcome, ParseOutcome::ok) << p.message;
    EXPECT_EQ(p.options.access_log, mode) << name;
    EXPECT_EQ(p.options.log_file, "/var/log/x");
  }
  const std::string path = write_file(
      "p2b-log.conf", "keys = \"k\"\nstore = \"s\"\naccess_log = \"off\"\nlog-file = \"a.log\"\n");
  p = parse({"--config", path});
  ASSERT_EQ(p.outcome, ParseOutcome::ok) << p.message;
  EXPECT_EQ(p.options.access_log, p2b::common::AccessLog::off);
  EXPECT_EQ(p.options.log_file, "a.log");
  std::remove(path.c_str());
  p = parse({"--keys", "k", "--store", "s", "--access-log", "some"});
  EXPECT_EQ(p.outcome, ParseOutcome::usage_error);
  EXPECT_NE(p.message.find("access-log"), std::string::npos) << p.message;
}

TEST(CommonServiceOptions, ConfigFileArraysUnderscoresAndOverrides) {
  const std::string path = write_file("p2b-options.conf",
                                      "# a comment\n"
                                      "keys = [\"a\", \"b\"]\n"
                                      "listen = \"0.0.0.0:9000\"\n"
                                      "spool = 'from-file.db'\n"
                                      "max_body = 2000\n"
                                      "log-level = \"warn\"\n"
                                      "color = \"green\"\n");
  Parsed p = parse({"--config", path});
  ASSERT_EQ(p.outcome, ParseOutcome::ok) << p.message;
  EXPECT_EQ(p.options.key_dirs, (std::vector<std::string>{"a", "b"})) << "an array is a list";
  EXPECT_EQ(p.options.listen_port, 9000);
  EXPECT_EQ(p.options.store, "from-file.db");
  EXPECT_EQ(p.options.max_body, 2000u) << "max_body reads as max-body, an integer as its digits";
  EXPECT_EQ(p.options.log_level, p2b::common::LogLevel::warn);
  EXPECT_EQ(p.extra, "green");
  const std::string one = write_file("p2b-one-key.conf", "keys = \"a\"\nstore = \"s\"\n");
  p = parse({"--config", one});
  ASSERT_EQ(p.outcome, ParseOutcome::ok) << p.message;
  EXPECT_EQ(p.options.key_dirs, std::vector<std::string>{"a"}) << "a list of one may be a string";
  std::remove(one.c_str());

  p = parse({"--config", path, "--keys", "c", "--color", "red", "--store", "flag.db"});
  ASSERT_EQ(p.outcome, ParseOutcome::ok) << p.message;
  EXPECT_EQ(p.options.key_dirs, std::vector<std::string>{"c"}) << "a flag replaces the list";
  EXPECT_EQ(p.extra, "red");
  EXPECT_EQ(p.options.store, "flag.db");
  std::remove(path.c_str());
}

TEST(CommonServiceOptions, HelpAndVersion) {
  Parsed p = parse({"--version"});
  EXPECT_EQ(p.outcome, ParseOutcome::version);
  EXPECT_EQ(p.message, std::string("p2b-test ") + P2B_VERSION_STRING + "\n");
  p = parse({"--help"});
  EXPECT_EQ(p.outcome, ParseOutcome::help);
  EXPECT_EQ(p.message.rfind("Usage: p2b-test ...\n", 0), 0u) << p.message;
  EXPECT_EQ(p.message.find("Usage", 1), std::string::npos) << "one usage line: " << p.message;
  EXPECT_EQ(p.message.find("TEXT"), std::string::npos) << p.message;
  for (const char* named : {"--listen HOST:PORT", "--keys DIR", "--max-body BYTES",
                            "--request-timeout SECONDS", "--config FILE", "--log-file FILE"}) {
    EXPECT_NE(p.message.find(named), std::string::npos) << named << " in " << p.message;
  }
  for (const char* flag : {"--listen", "--keys", "--store", "--max-body", "--log-level", "--config",
                           "--version", "--color", "--max-connections", "--request-timeout",
                           "--idle-timeout", "--max-headers", "--max-header-bytes"}) {
    EXPECT_NE(p.message.find(flag), std::string::npos) << flag;
  }
}

TEST(CommonServiceOptions, MistakesAreUsageErrors) {
  const std::string unknown = write_file("p2b-unknown.conf", "keys = \"a\"\ncolour = \"blue\"\n");
  const std::vector<std::vector<std::string>> bad = {
      {},
      {"--store", "s"},
      {"--keys", "k"},
      {"--keys", "", "--store", "s"},
      {"--keys", "k", "--store", "s", "--listen", "8710"},
      {"--keys", "k", "--store", "s", "--listen", "h:65536"},
      {"--keys", "k", "--store", "s", "--max-body", "9"},
      {"--keys", "k", "--store", "s", "--max-body", "5001"},
      {"--keys", "k", "--store", "s", "--max-body", "-5"},
      {"--keys", "k", "--store", "s", "--log-level", "loud"},
      {"--keys", "k", "--store", "s", "--bogus"},
      {"--keys", "k", "--store", "s", "stray"},
      {"--keys", "k", "--store"},
      {"--config", "/nonexistent/p2b.conf"},
      {"--config", unknown, "--store", "s"},
  };
  for (std::size_t i = 0; i < bad.size(); ++i) {
    const Parsed p = parse(bad[i]);
    EXPECT_EQ(p.outcome, ParseOutcome::usage_error) << "case " << i;
    EXPECT_FALSE(p.message.empty()) << "case " << i;
  }
  EXPECT_EQ(parse({"--keys", "k", "--store", "s", "--bogus"}).message,
            "unknown argument '--bogus'");
  std::remove(unknown.c_str());
}

}  // namespace

namespace {

// Each refusal of a config file: exit status 2 (ParseOutcome::usage_error),
// one printable line that names FILE:LINE and what is wrong.
struct ConfigCase {
  const char* name;
  std::string text;
  std::string line;  // ":LINE:" expected after the file name
  std::string says;  // expected in the message
};

TEST(CommonServiceOptions, ConfigFileRefusalsNameFileLineAndKey) {
  const std::vector<ConfigCase> cases = {
      {"typo", "keys = \"k\"\nstore = \"s\"\n\nlisen = \"0.0.0.0:1\"\n", ":4:1",
       "key 'lisen': unknown key (did you mean 'listen'?)"},
      {"far-typo", "keys = \"k\"\nwhatever = 1\n", ":2:1", "key 'whatever': unknown key"},
      {"bad-value", "keys = \"k\"\nstore = \"s\"\nmax-body = 99999\n", ":3:1",
       "--max-body: expected 10..5000 bytes, got '99999'"},
      {"wrong-type", "keys = \"k\"\nstore = \"s\"\nlisten = [\"a\", \"b\"]\n", ":3:1",
       "key 'listen': expected one value (a string or a number), got an array"},
      {"table", "keys = \"k\"\n[listen]\nport = 1\n", ":2:", "key 'listen': unknown section"},
      {"ini", "keys = k\n", ":1:", "not TOML"},
      {"repeat", "keys = \"a\"\nkeys = \"b\"\n", ":2:", "not TOML"},
      {"binary", std::string("keys = \"k\"\n\x01\xff\xfe\x1b[31m\x00zz", 14), ":2:", "not TOML"},
      {"control-in-value", "keys = \"k\"\nstore = \"s\"\nlog-level = \"\\u001b[31mloud\"\n", ":3:1",
       "--log-level: expected debug, info, warn or error, got '\\x1b[31mloud'"},
  };
  for (const ConfigCase& c : cases) {
    const std::string path = write_file(std::string("p2b-bad-") + c.name + ".conf", c.text);
    const Parsed p = parse({"--config", path});
    EXPECT_EQ(p.outcome, ParseOutcome::usage_error) << c.name;
    const std::string line = shown(p);
    EXPECT_EQ(line.rfind(path + c.line, 0), 0u) << c.name << ": " << line;
    EXPECT_NE(line.find(c.says), std::string::npos) << c.name << ": " << line;
    EXPECT_TRUE(printable_line(line)) << c.name << ": " << line;
    std::remove(path.c_str());
  }
  const Parsed missing = parse({"--config", "/nonexistent/p2b.conf"});
  EXPECT_EQ(missing.outcome, ParseOutcome::usage_error);
  EXPECT_EQ(shown(missing),
            "/nonexistent/p2b.conf: cannot read the config file "
            "(No such file or directory)");
}

TEST(CommonServiceOptions, AFlagOnTheCommandLineWinsOverABadValueInTheFile) {
  const std::string path =
      write_file("p2b-overridden.conf", "keys = \"k\"\nstore = \"s\"\nmax-body = 99999\n");
  const Parsed p = parse({"--config", path, "--max-body", "2000"});
  ASSERT_EQ(p.outcome, ParseOutcome::ok) << p.message;
  EXPECT_EQ(p.options.max_body, 2000u);
  const Parsed bad = parse({"--config", path, "--max-body", "1"});
  EXPECT_EQ(shown(bad).rfind("--max-body", 0), 0u)
      << "the bad value is the flag's, not the file's: " << shown(bad);
  std::remove(path.c_str());
}

}  // namespace
