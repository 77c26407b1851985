// The shared logger: one parseable JSON object per line, fields in order,
// strings escaped, secret-named fields redacted, levels filtered.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/json_log.hpp"

namespace {

using p2b::common::Logger;
using p2b::common::LogLevel;
namespace fs = std::filesystem;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(CommonJsonLog, OneObjectPerLineWithTheEnvelopeFirst) {
  std::ostringstream sink;
  Logger log(&sink);
  log.info("started", {{"port", 8710}, {"ratio", 0.25}, {"clean", true}, {"name", "x"}});
  const std::vector<std::string> lines = lines_of(sink.str());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("{\"ts\":\"", 0), 0u) << lines[0];
  const auto j = nlohmann::ordered_json::parse(lines[0]);
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  EXPECT_EQ(keys,
            (std::vector<std::string>{"ts", "level", "event", "port", "ratio", "clean", "name"}));
  EXPECT_EQ(j["level"], "info");
  EXPECT_EQ(j["event"], "started");
  EXPECT_EQ(j["port"], 8710);
  EXPECT_EQ(j["ratio"], 0.25);
  EXPECT_EQ(j["clean"], true);
  const std::string ts = j["ts"];
  EXPECT_EQ(ts.size(), 24u) << ts;  // 2025-01-01T00:00:00.000Z
  EXPECT_EQ(ts.back(), 'Z');
}

TEST(CommonJsonLog, EscapesEveryAwkwardString) {
  std::ostringstream sink;
  Logger log(&sink);
  const std::string nasty = "quote\" backslash\\ newline\n tab\t bell\x07 end";
  log.warn("odd", {{"error", nasty}, {"bytes", std::string("\xff\xfe", 2)}});
  const std::vector<std::string> lines = lines_of(sink.str());
  ASSERT_EQ(lines.size(), 1u) << "a newline in a value split the line";
  const auto j = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(j["error"], nasty);
  EXPECT_EQ(j["bytes"], "\xef\xbf\xbd\xef\xbf\xbd") << "invalid UTF-8 becomes U+FFFD";
}

TEST(CommonJsonLog, NonFiniteNumbersAreNull) {
  std::ostringstream sink;
  Logger log(&sink);
  log.info("x", {{"nan", std::nan("")}, {"inf", HUGE_VAL}});
  const auto j = nlohmann::json::parse(sink.str());
  EXPECT_TRUE(j["nan"].is_null());
  EXPECT_TRUE(j["inf"].is_null());
}

TEST(CommonJsonLog, FieldsNamedLikeSecretsNeverReachTheLog) {
  std::ostringstream sink;
  Logger log(&sink);
  const std::string secret = "0123456789abcdef-secret-bytes";
  log.error("oops", {{"secret_key", secret},
                     {"sk", secret},
                     {"box-sk", secret},
                     {"seed", secret},
                     {"password", secret},
                     {"Token", secret},
                     {"plaintext", secret},
                     {"task", "kept"},
                     {"key_fingerprints", "kept"}});
  EXPECT_EQ(sink.str().find(secret), std::string::npos) << sink.str();
  const auto j = nlohmann::json::parse(sink.str());
  for (const char* k : {"secret_key", "sk", "box-sk", "seed", "password", "Token", "plaintext"}) {
    EXPECT_EQ(j[k], "[redacted]") << k;
  }
  EXPECT_EQ(j["task"], "kept");
  EXPECT_EQ(j["key_fingerprints"], "kept");
}

TEST(CommonJsonLog, LinesBelowTheLevelAreDropped) {
  std::ostringstream sink;
  Logger log(&sink);
  log.debug("hidden");
  log.set_level(LogLevel::warn);
  log.info("hidden");
  log.warn("shown");
  log.error("shown");
  EXPECT_EQ(lines_of(sink.str()).size(), 2u) << sink.str();
  EXPECT_EQ(sink.str().find("hidden"), std::string::npos);
}

TEST(CommonJsonLog, LevelNames) {
  LogLevel l = LogLevel::info;
  for (const char* name : {"debug", "info", "warn", "error"}) {
    ASSERT_TRUE(p2b::common::parse_log_level(name, &l)) << name;
    EXPECT_STREQ(p2b::common::log_level_name(l), name);
  }
  EXPECT_FALSE(p2b::common::parse_log_level("warning", &l));
  EXPECT_FALSE(p2b::common::parse_log_level("", &l));
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// logrotate's move-then-HUP: after reopen() the lines go to a new file at
// the old path, and the moved file keeps what came before.
TEST(CommonJsonLog, ALogFileIsReopenedAfterItWasMoved) {
  const fs::path dir = fs::temp_directory_path() / ("p2b-log-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ostringstream sink;
  Logger log(&sink);
  std::string error;
  EXPECT_EQ(log.reopen(&error), Logger::Reopen::no_file);
  ASSERT_TRUE(log.open_file((dir / "svc.log").string(), &error)) << error;
  EXPECT_EQ(log.file_path(), (dir / "svc.log").string());
  log.info("before");
  fs::rename(dir / "svc.log", dir / "svc.log.1");
  log.info("moved");  // still the open file, now named svc.log.1
  ASSERT_EQ(log.reopen(&error), Logger::Reopen::reopened) << error;
  log.info("after");
  const std::string old_text = read_all(dir / "svc.log.1");
  const std::string new_text = read_all(dir / "svc.log");
  EXPECT_NE(old_text.find("\"before\""), std::string::npos);
  EXPECT_NE(old_text.find("\"moved\""), std::string::npos);
  EXPECT_EQ(old_text.find("\"after\""), std::string::npos);
  EXPECT_EQ(lines_of(new_text).size(), 1u) << new_text;
  EXPECT_NE(new_text.find("\"after\""), std::string::npos);
  EXPECT_TRUE(sink.str().empty()) << "nothing went to the stream once a file was open";
  // A directory that went away: the old file stays in use.
  fs::remove_all(dir);
  EXPECT_EQ(log.reopen(&error), Logger::Reopen::failed);
  EXPECT_NE(error.find("svc.log"), std::string::npos) << error;
}

TEST(CommonJsonLog, AnUnopenableLogFileLeavesTheStream) {
  std::ostringstream sink;
  Logger log(&sink);
  std::string error;
  EXPECT_FALSE(log.open_file("/nonexistent-dir/p2b/svc.log", &error));
  EXPECT_NE(error.find("/nonexistent-dir/p2b/svc.log"), std::string::npos) << error;
  EXPECT_EQ(log.file_path(), "");
  log.info("still_here");
  EXPECT_NE(sink.str().find("still_here"), std::string::npos);
}

}  // namespace
