// `p2b-analyzer quarantine list|retry|purge` on a SQLite store, and the
// "quarantine" readiness check: a non-empty quarantine is named in /readyz
// and fails it only once full.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer_test_support.hpp"
#include "common/exit_codes.hpp"
#include "quarantine_check.hpp"
#include "quarantine_main.hpp"

namespace {

using analyzer_test::Deployment;
using analyzer_test::TempDir;
namespace an = p2b::analyzer;
namespace sv = p2b::server;

// A store whose quarantine holds one record sealed to a key the analyzer
// does not hold (unknown_key); closed again, as the tool requires.
std::string store_with_one_quarantined(const Deployment& dep, const TempDir& tmp) {
  std::string path = tmp.file("s.db");
  uint8_t pk[crypto_box_PUBLICKEYBYTES], sk[crypto_box_SECRETKEYBYTES];
  crypto_box_keypair(pk, sk);
  sv::BoxKey other{};
  sv::make_box_key(pk, sk, &other);
  an::SqliteModelStore store(path, analyzer_test::test_mac_keys());
  std::ostringstream log_text;
  an::Logger log(&log_text);
  an::Metrics metrics;
  an::Analyzer analyzer(analyzer_test::settings(4), dep.codebook, dep.key_ring(), &store, &metrics,
                        &log);
  sv::Batch batch = analyzer_test::make_batch(dep, {{1, 0, 1.0F}});
  batch.records.push_back(dep.record(2, 0, 1.0F, &other));
  EXPECT_EQ(analyzer_test::apply(analyzer, batch).quarantined, 1U);
  return path;
}

int quarantine(std::vector<std::string> args, std::string* out) {
  args.insert(args.begin(), "quarantine");
  std::vector<const char*> argv;
  argv.reserve(args.size());
  for (const std::string& a : args) argv.push_back(a.c_str());
  testing::internal::CaptureStdout();
  const int rc = an::quarantine_main(static_cast<int>(argv.size()), argv.data());
  *out = testing::internal::GetCapturedStdout();
  return rc;
}

bool has(const std::string& text, const std::string& line) {
  return text.find(line) != std::string::npos;
}

TEST(AnalyzerQuarantineCommand, ListShowsCountsByReasonAndBatchPositionsNeverContents) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  const std::string path = store_with_one_quarantined(dep, tmp);
  std::string out;
  ASSERT_EQ(quarantine({"list", "--store", path}, &out), p2b::common::kExitClean);
  EXPECT_TRUE(has(out, "1 records in quarantine")) << out;
  EXPECT_TRUE(has(out, "reason unknown_key: 1")) << out;
  EXPECT_TRUE(has(out, " 1 unknown_key ")) << out;  // position 1 of its batch
  ASSERT_EQ(quarantine({"list", "--store", path, "--reason", "malformed"}, &out),
            p2b::common::kExitClean);
  EXPECT_TRUE(has(out, "0 records in quarantine")) << out;
}

TEST(AnalyzerQuarantineCommand, RetryCountsWhatTheNextStartRetriesAndChangesNothing) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  const std::string path = store_with_one_quarantined(dep, tmp);
  std::string out;
  ASSERT_EQ(quarantine({"retry", "--store", path}, &out), p2b::common::kExitClean);
  EXPECT_TRUE(has(out, "1 records will be retried")) << out;
  an::SqliteModelStore store(path, analyzer_test::test_mac_keys());
  EXPECT_EQ(store.quarantine_size(), 1U);
}

TEST(AnalyzerQuarantineCommand, PurgeDeletesOnlyWhatMatchesAndCountsIt) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  const std::string path = store_with_one_quarantined(dep, tmp);
  std::string out;
  ASSERT_EQ(quarantine({"purge", "--store", path, "--reason", "malformed"}, &out),
            p2b::common::kExitClean);
  EXPECT_TRUE(has(out, "purged 0 records")) << out;
  ASSERT_EQ(quarantine({"purge", "--store", path, "--older-than", "1"}, &out),
            p2b::common::kExitClean);
  EXPECT_TRUE(has(out, "purged 0 records")) << out;
  ASSERT_EQ(quarantine({"purge", "--store", path, "--older-than", "0"}, &out),
            p2b::common::kExitClean);
  EXPECT_TRUE(has(out, "purged 1 records")) << out;
  an::SqliteModelStore store(path, analyzer_test::test_mac_keys());
  EXPECT_EQ(store.quarantine_size(), 0U);
}

TEST(AnalyzerQuarantineCommand, BadCommandLinesAreUsageErrorsAndAMissingStoreIsNotCreated) {
  const TempDir tmp;
  std::string out;
  EXPECT_EQ(quarantine({}, &out), p2b::common::kExitUsage);
  EXPECT_EQ(quarantine({"list"}, &out), p2b::common::kExitUsage);
  EXPECT_EQ(quarantine({"flush", "--store", "s.db"}, &out), p2b::common::kExitUsage);
  EXPECT_EQ(quarantine({"list", "--store", "s.db", "--older-than", "-3"}, &out),
            p2b::common::kExitUsage);
  EXPECT_EQ(quarantine({"list", "--store", "postgresql://h/db"}, &out), p2b::common::kExitUsage);
  EXPECT_EQ(quarantine({"list", "--store", tmp.file("none.db")}, &out), p2b::common::kExitFailure);
  EXPECT_FALSE(std::filesystem::exists(tmp.file("none.db")));
  EXPECT_EQ(quarantine({"--help"}, &out), p2b::common::kExitClean);
  EXPECT_TRUE(has(out, "Usage: p2b-analyzer quarantine")) << out;
}

TEST(AnalyzerQuarantineCheck, NamesANonEmptyQuarantineAndFailsOnlyWhenFull) {
  EXPECT_TRUE(an::quarantine_check(0, 10).ok);
  const p2b::common::CheckResult some = an::quarantine_check(3, 10);
  EXPECT_TRUE(some.ok);
  EXPECT_TRUE(has(some.detail, "3 of at most 10")) << some.detail;
  const p2b::common::CheckResult full = an::quarantine_check(10, 10);
  EXPECT_FALSE(full.ok);
  EXPECT_TRUE(has(full.detail, "full")) << full.detail;
}

}  // namespace
