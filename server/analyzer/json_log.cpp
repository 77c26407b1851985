#include "json_log.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <ostream>

namespace p2b::analyzer {

namespace {

std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[80];  // room for any int fields, so the format never truncates
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace

std::string json_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 2);
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        if (c < 0x20) {
          char u[8];
          std::snprintf(u, sizeof u, "\\u%04x", c);
          out += u;
        } else {
          out += ch;
        }
    }
  }
  return out;
}

LogField::LogField(std::string key, const std::string& value)
    : key_(std::move(key)), json_('"' + json_escape(value) + '"') {}
LogField::LogField(std::string key, const char* value)
    : LogField(std::move(key), std::string(value)) {}
LogField::LogField(std::string key, uint64_t value)
    : key_(std::move(key)), json_(std::to_string(value)) {}
LogField::LogField(std::string key, uint32_t value)
    : key_(std::move(key)), json_(std::to_string(value)) {}
LogField::LogField(std::string key, int value)
    : key_(std::move(key)), json_(std::to_string(value)) {}
LogField::LogField(std::string key, double value) : key_(std::move(key)) {
  // JSON has no NaN or infinity.
  if (std::isfinite(value)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", value);
    json_ = buf;
  } else {
    json_ = "null";
  }
}
LogField::LogField(std::string key, bool value)
    : key_(std::move(key)), json_(value ? "true" : "false") {}

Logger::Logger(std::ostream* out) : out_(out) {}

void Logger::log(const char* level, const char* event, const std::vector<LogField>& fields) {
  std::string line = "{\"ts\":\"" + utc_now() + "\",\"level\":\"" + level + "\",\"event\":\"" +
                     json_escape(event) + '"';
  for (const LogField& f : fields) line += ",\"" + json_escape(f.key()) + "\":" + f.json();
  line += "}\n";
  const std::lock_guard<std::mutex> lock(mu_);
  *out_ << line << std::flush;
}

}  // namespace p2b::analyzer
