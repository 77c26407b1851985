#include "common/json_log.hpp"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <iostream>

namespace p2b::common {

namespace {

// RFC 3339 UTC with milliseconds.
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

std::unique_ptr<std::ofstream> open_append(const std::string& path, std::string* error) {
  errno = 0;
  auto file = std::make_unique<std::ofstream>(path, std::ios::out | std::ios::app);
  if (*file) return file;
  *error = path + ": " + (errno != 0 ? std::strerror(errno) : "cannot be opened");
  return nullptr;
}

constexpr const char* kSecretWords[] = {"secret",     "sk",    "seed",     "password",
                                        "passphrase", "token", "plaintext"};

}  // namespace

bool parse_log_level(const std::string& name, LogLevel* out) {
  for (LogLevel l : {LogLevel::debug, LogLevel::info, LogLevel::warn, LogLevel::error}) {
    if (name == log_level_name(l)) {
      *out = l;
      return true;
    }
  }
  return false;
}

const char* log_level_name(LogLevel level) {
  switch (level) {
    case LogLevel::debug:
      return "debug";
    case LogLevel::info:
      return "info";
    case LogLevel::warn:
      return "warn";
    case LogLevel::error:
      return "error";
  }
  return "error";
}

bool parse_access_log(const std::string& name, AccessLog* out) {
  if (name == "all") {
    *out = AccessLog::all;
  } else if (name == "default") {
    *out = AccessLog::standard;
  } else if (name == "off") {
    *out = AccessLog::off;
  } else {
    return false;
  }
  return true;
}

bool is_secret_field_name(const std::string& key) {
  // Whole words of a snake_case or kebab-case name, so "task" is not "sk".
  std::string word;
  for (std::size_t i = 0; i <= key.size(); ++i) {
    const char c = i < key.size() ? key[i] : '_';
    if (c != '_' && c != '-' && c != '.') {
      word += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      continue;
    }
    for (const char* secret : kSecretWords) {
      if (word == secret) return true;
    }
    word.clear();
  }
  return false;
}

Logger::Logger(std::ostream* out, LogLevel min_level) : out_(out), min_level_(min_level) {}

void Logger::set_level(LogLevel min_level) {
  const std::lock_guard<std::mutex> lock(mu_);
  min_level_ = min_level;
}

bool Logger::open_file(const std::string& path, std::string* error) {
  std::unique_ptr<std::ofstream> file = open_append(path, error);
  if (!file) return false;
  const std::lock_guard<std::mutex> lock(mu_);
  file_ = std::move(file);
  out_ = file_.get();
  path_ = path;
  return true;
}

Logger::Reopen Logger::reopen(std::string* error) {
  const std::string path = file_path();
  if (path.empty()) return Reopen::no_file;
  std::unique_ptr<std::ofstream> file = open_append(path, error);
  if (!file) return Reopen::failed;
  const std::lock_guard<std::mutex> lock(mu_);
  file_ = std::move(file);  // closes the old one, which logrotate has moved
  out_ = file_.get();
  return Reopen::reopened;
}

std::string Logger::file_path() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return path_;
}

void Logger::log(LogLevel level, const char* event, const std::vector<LogField>& fields) {
  nlohmann::ordered_json line;
  line["ts"] = utc_now();
  line["level"] = log_level_name(level);
  line["event"] = event;
  for (const LogField& f : fields) {
    line[f.key] = is_secret_field_name(f.key) ? nlohmann::ordered_json("[redacted]") : f.value;
  }
  // Bytes that are not UTF-8 (a path, an OS message) become U+FFFD rather
  // than an exception on the logging path.
  const std::string text =
      line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  const std::lock_guard<std::mutex> lock(mu_);
  if (level < min_level_) return;
  *out_ << text << std::flush;
}

Logger& service_log() {
  static Logger log(&std::cerr);
  return log;
}

}  // namespace p2b::common
