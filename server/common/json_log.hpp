// Structured logs: one JSON object per line, {"ts":..., "level":...,
// "event":..., <fields in the order given>}. Callers pass metadata only
// (counts, ids, versions, reasons, public fingerprints). As a second line of
// defence, a field whose name says it holds a secret (secret, sk, seed,
// password, token, plaintext) is written as "[redacted]", whatever its value.
#pragma once

#include <fstream>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace p2b::common {

enum class LogLevel { debug = 0, info = 1, warn = 2, error = 3 };

// "debug", "info", "warn", "error"; false for anything else.
bool parse_log_level(const std::string& name, LogLevel* out);
const char* log_level_name(LogLevel level);

// Which requests the access log ("http" events) records: all, all but the
// service's bulk routes (model downloads; the shuffler's report posts), or
// none.
enum class AccessLog { all, standard, off };
// "all", "default", "off"; false for anything else.
bool parse_access_log(const std::string& name, AccessLog* out);

struct LogField {
  std::string key;
  nlohmann::ordered_json value;  // non-finite numbers are written as null
};

// True if a field of this name is redacted.
bool is_secret_field_name(const std::string& key);

class Logger {
 public:
  explicit Logger(std::ostream* out, LogLevel min_level = LogLevel::info);
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;

  void set_level(LogLevel min_level);

  // From now on writes to the file at `path` (appending, created if
  // missing) instead of the stream given at construction. False, with
  // `error` set, if it cannot be opened; the output is then unchanged.
  bool open_file(const std::string& path, std::string* error);
  enum class Reopen { reopened, no_file, failed };
  // Opens the file's path again (after logrotate moved it away); on
  // failure the old file stays in use.
  Reopen reopen(std::string* error);
  // The path given to open_file, or empty.
  std::string file_path() const;

  // Thread-safe; each call writes one whole line, or nothing below the level.
  void log(LogLevel level, const char* event, const std::vector<LogField>& fields = {});
  void debug(const char* event, const std::vector<LogField>& fields = {}) {
    log(LogLevel::debug, event, fields);
  }
  void info(const char* event, const std::vector<LogField>& fields = {}) {
    log(LogLevel::info, event, fields);
  }
  void warn(const char* event, const std::vector<LogField>& fields = {}) {
    log(LogLevel::warn, event, fields);
  }
  void error(const char* event, const std::vector<LogField>& fields = {}) {
    log(LogLevel::error, event, fields);
  }

 private:
  std::ostream* out_;
  LogLevel min_level_;
  std::unique_ptr<std::ofstream> file_;
  std::string path_;
  mutable std::mutex mu_;  // request threads log concurrently; lines must not interleave
};

// The process's logger, on stderr.
Logger& service_log();

}  // namespace p2b::common
