// The settings every service shares, spelled the same in each
// (docs/operations.md): --listen, --keys, --store, --max-body, --log-level,
// --log-file, --access-log, the HTTP limits (--max-connections,
// --request-timeout, --idle-timeout, --max-headers, --max-header-bytes,
// --drain-timeout), plus --config, --version and --help from CommandLine.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/command_line.hpp"
#include "common/http_limits.hpp"
#include "common/json_log.hpp"

namespace p2b::common {

struct ServiceOptions {
  std::string listen_host = "127.0.0.1";
  int listen_port = 0;  // 0: the kernel picks one
  std::vector<std::string> key_dirs;
  std::string store;
  std::size_t max_body = 0;
  LogLevel log_level = LogLevel::info;
  std::string log_file;  // empty: stderr
  AccessLog access_log = AccessLog::standard;
  HttpLimits http;
};

// What differs between the services in the shared settings.
struct ServiceDefaults {
  int listen_port = 0;
  std::string keys_help;
  std::string store_help;
  std::string store_alias;     // an older name of --store ("spool"), or empty
  bool keys = true;            // false: the service has no --keys (the relay)
  bool store_required = true;  // false: no --store is a valid choice (in memory)
  std::size_t max_body = 0;    // 0 with max_body_help: the service derives it
  std::string max_body_help;   // empty: "largest request body in bytes (default N)"
  std::size_t min_body = 1;
  std::size_t max_max_body = std::size_t{1} << 30;
};

class ServiceCommandLine {
 public:
  ServiceCommandLine(const std::string& program, const std::string& synopsis,
                     const std::string& description, const ServiceDefaults& defaults);

  CommandLine& command_line() { return cli_; }
  CLI::App& app() { return cli_.app(); }

  // Parses and checks the shared settings into `out`; the service then
  // checks its own (see CommandLine::add_value).
  ParseOutcome parse(int argc, const char* const* argv, ServiceOptions* out, std::string* message);

 private:
  ServiceDefaults defaults_;
  CommandLine cli_;
  // Checks the HTTP limits given into `out`; false after setting `message`.
  bool parse_http_limits(HttpLimits* out, std::string* message) const;

  std::string listen_, max_body_, log_level_, log_file_, access_log_;
  std::string max_connections_, request_timeout_, idle_timeout_, max_headers_, max_header_bytes_;
  std::string drain_timeout_;
  std::vector<std::string> key_dirs_;
  std::string store_;
  CLI::Option* listen_opt_;
  CLI::Option* max_body_opt_;
  CLI::Option* log_level_opt_;
  CLI::Option* access_log_opt_;
  CLI::Option* drain_timeout_opt_;
  CLI::Option* max_connections_opt_;
  CLI::Option* request_timeout_opt_;
  CLI::Option* idle_timeout_opt_;
  CLI::Option* max_headers_opt_;
  CLI::Option* max_header_bytes_opt_;
};

}  // namespace p2b::common
