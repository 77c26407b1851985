#include "common/service_options.hpp"

#include "common/option_values.hpp"

namespace p2b::common {

ServiceCommandLine::ServiceCommandLine(const std::string& program, const std::string& synopsis,
                                       const std::string& description,
                                       const ServiceDefaults& defaults)
    : defaults_(defaults), cli_(program, synopsis, description, true) {
  listen_opt_ = cli_.add_value(
      "--listen", &listen_,
      "HOST:PORT to serve HTTP on (default 127.0.0.1:" + std::to_string(defaults.listen_port) +
          "); port 0 picks a free port");
  if (defaults.keys) {
    cli_.app()
        .add_option("--keys", key_dirs_, defaults.keys_help)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  }
  const std::string store_names =
      defaults.store_alias.empty() ? "--store" : "--store,--" + defaults.store_alias;
  cli_.add_value(store_names, &store_, defaults.store_help);
  max_body_opt_ = cli_.add_value(
      "--max-body", &max_body_,
      !defaults.max_body_help.empty()
          ? defaults.max_body_help
          : "largest request body in bytes (default " + std::to_string(defaults.max_body) + ")");
  log_level_opt_ =
      cli_.add_value("--log-level", &log_level_, "debug, info (default), warn or error");
  cli_.add_value("--log-file", &log_file_,
                 "write the log to this file instead of stderr; SIGHUP reopens it");
  access_log_opt_ =
      cli_.add_value("--access-log", &access_log_,
                     "request log: all, default (all but the service's bulk requests) or off");
  const HttpLimits d;
  max_connections_opt_ = cli_.add_value("--max-connections", &max_connections_,
                                        "connections served at once; more get 503 (default " +
                                            std::to_string(d.max_connections) + ")");
  request_timeout_opt_ =
      cli_.add_value("--request-timeout", &request_timeout_,
                     "seconds a request may take to arrive, head and body (default 30)");
  idle_timeout_opt_ = cli_.add_value("--idle-timeout", &idle_timeout_,
                                     "seconds a connection may wait before a request (default 5)");
  max_headers_opt_ =
      cli_.add_value("--max-headers", &max_headers_,
                     "header fields in a request (default " + std::to_string(d.max_headers) + ")");
  drain_timeout_opt_ =
      cli_.add_value("--drain-timeout", &drain_timeout_,
                     "seconds requests in flight may take after a stop signal (default 5)");
  max_header_bytes_opt_ = cli_.add_value("--max-header-bytes", &max_header_bytes_,
                                         "bytes of a request line and header fields (default " +
                                             std::to_string(d.max_head_bytes) + ")");
}

bool ServiceCommandLine::parse_http_limits(HttpLimits* out, std::string* message) const {
  HttpLimits l;
  const auto fail = [message](const std::string& name, const std::string& what,
                              const std::string& raw) {
    usage_error(message, bad_value(name, what, raw));
    return false;
  };
  const auto count = [](const CLI::Option* opt, const std::string& raw, uint64_t lo, uint64_t hi,
                        std::size_t* v) {
    uint64_t n = 0;
    if (!given(opt)) return true;
    if (!parse_count(raw, lo, hi, &n)) return false;
    *v = static_cast<std::size_t>(n);
    return true;
  };
  const auto seconds = [](const CLI::Option* opt, const std::string& raw, double* v) {
    return !given(opt) || parse_real(raw, 0.1, 3600, v);
  };
  if (!count(max_connections_opt_, max_connections_, 1, 65536, &l.max_connections)) {
    return fail("max-connections", "1..65536", max_connections_);
  }
  if (!seconds(request_timeout_opt_, request_timeout_, &l.request_seconds)) {
    return fail("request-timeout", "0.1..3600 seconds", request_timeout_);
  }
  if (!seconds(idle_timeout_opt_, idle_timeout_, &l.idle_seconds)) {
    return fail("idle-timeout", "0.1..3600 seconds", idle_timeout_);
  }
  if (!count(max_headers_opt_, max_headers_, 1, 1000, &l.max_headers)) {
    return fail("max-headers", "1..1000", max_headers_);
  }
  if (!count(max_header_bytes_opt_, max_header_bytes_, 1024, 1048576, &l.max_head_bytes)) {
    return fail("max-header-bytes", "1024..1048576 bytes", max_header_bytes_);
  }
  if (given(drain_timeout_opt_) && !parse_real(drain_timeout_, 0, 3600, &l.drain_seconds)) {
    return fail("drain-timeout", "0..3600 seconds", drain_timeout_);
  }
  *out = l;
  return true;
}

ParseOutcome ServiceCommandLine::parse(int argc, const char* const* argv, ServiceOptions* out,
                                       std::string* message) {
  const ParseOutcome parsed = cli_.parse(argc, argv, message);
  if (parsed != ParseOutcome::ok) return parsed;
  ServiceOptions o;
  o.listen_port = defaults_.listen_port;
  o.max_body = defaults_.max_body;
  const auto refuse = [message](std::string why) { return usage_error(message, std::move(why)); };
  if (given(listen_opt_) && !parse_listen(listen_, &o.listen_host, &o.listen_port)) {
    return refuse(bad_value("listen", "HOST:PORT with a port in 0..65535", listen_));
  }
  for (const std::string& d : key_dirs_) {
    if (d.empty()) return refuse("--keys: empty directory name");
  }
  if (defaults_.keys && key_dirs_.empty()) return refuse("--keys is required");
  o.key_dirs = key_dirs_;
  if (defaults_.store_required && store_.empty()) return refuse("--store is required");
  o.store = store_;
  uint64_t body = 0;
  if (given(max_body_opt_)) {
    if (!parse_count(max_body_, defaults_.min_body, defaults_.max_max_body, &body)) {
      return refuse(bad_value("max-body",
                              std::to_string(defaults_.min_body) + ".." +
                                  std::to_string(defaults_.max_max_body) + " bytes",
                              max_body_));
    }
    o.max_body = static_cast<std::size_t>(body);
  }
  if (given(log_level_opt_) && !parse_log_level(log_level_, &o.log_level)) {
    return refuse(bad_value("log-level", "debug, info, warn or error", log_level_));
  }
  if (given(access_log_opt_) && !parse_access_log(access_log_, &o.access_log)) {
    return refuse(bad_value("access-log", "all, default or off", access_log_));
  }
  o.log_file = log_file_;
  if (!parse_http_limits(&o.http, message)) return ParseOutcome::usage_error;
  *out = std::move(o);
  return ParseOutcome::ok;
}

}  // namespace p2b::common
