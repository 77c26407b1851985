#include "shuffler/json_log.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace p2b::shuffler {

namespace {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", c);
      out += esc;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// RFC 3339 UTC with milliseconds.
std::string timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  const std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", static_cast<int>(ms));
  return buf;
}

}  // namespace

LogField::LogField(const char* k, double v) : key(k) {
  if (std::isfinite(v)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    json = buf;
  } else {
    json = "null";
  }
}

LogField::LogField(const char* k, const std::string& v) : key(k), json(quote(v)) {}

void log_event(const char* level, const char* event, std::initializer_list<LogField> fields) {
  std::string line =
      "{\"ts\":" + quote(timestamp()) + ",\"level\":" + quote(level) + ",\"event\":" + quote(event);
  for (const LogField& f : fields) line += "," + quote(f.key) + ":" + f.json;
  line += "}\n";
  static std::mutex mu;
  const std::lock_guard<std::mutex> lock(mu);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace p2b::shuffler
