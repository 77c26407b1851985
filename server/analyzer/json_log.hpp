// Structured logs: one JSON object per line on stderr, so a collector can
// parse them without guessing. Callers pass only metadata (ids, counts,
// versions, reasons): never key bytes and never an opened report.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace p2b::analyzer {

// One field; the value is either a JSON string (quoted and escaped) or a
// number or boolean already rendered by the caller's constructor.
class LogField {
 public:
  LogField(std::string key, const std::string& value);
  LogField(std::string key, const char* value);
  LogField(std::string key, uint64_t value);
  LogField(std::string key, uint32_t value);
  LogField(std::string key, int value);
  LogField(std::string key, double value);
  LogField(std::string key, bool value);

  const std::string& key() const { return key_; }
  const std::string& json() const { return json_; }

 private:
  std::string key_;
  std::string json_;
};

std::string json_escape(const std::string& s);

class Logger {
 public:
  explicit Logger(std::ostream* out);
  // {"ts":"2025-01-01T00:00:00.000Z","level":...,"event":...,<fields>}
  void log(const char* level, const char* event, const std::vector<LogField>& fields = {});
  void info(const char* event, const std::vector<LogField>& fields = {}) {
    log("info", event, fields);
  }
  void warn(const char* event, const std::vector<LogField>& fields = {}) {
    log("warn", event, fields);
  }
  void error(const char* event, const std::vector<LogField>& fields = {}) {
    log("error", event, fields);
  }

 private:
  std::ostream* out_;
  std::mutex mu_;  // request threads log concurrently; lines must not interleave
};

}  // namespace p2b::analyzer
