// Bounded work as real processes on loopback (issue #12, faults 6 and 7):
// a backlog leaves in batches of at most --batch-size; the analyzer refuses
// a batch over --max-batch-records and the shuffler keeps it; SIGTERM during
// a backlog with a hung analyzer exits within seconds and leaves the backlog;
// a disk below --min-free-disk turns reports away with 507 while the backlog
// still drains. Each ends with the ledger: nothing acknowledged is lost or
// applied twice. Every wait is bounded.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "ledger.hpp"
#include "service_fixture.hpp"

namespace {

namespace fs = std::filesystem;
using p2b_services::applied_at_least;
using p2b_services::Deployment;
using p2b_services::Envelope;
using p2b_services::envelopes;
using p2b_services::eventually;
using p2b_services::expect_nothing_lost;
using p2b_services::Ledger;
using p2b_services::LedgerTally;
using p2b_services::metric;
using Clock = std::chrono::steady_clock;

// Nothing listens here: deliveries fail, batches stay in the spool.
const std::string kNowhere = "http://127.0.0.1:9";

void start_shuffler(Deployment& d, const std::string& url, const std::string& batch_size,
                    const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = d.shuffler_args(1, url, "1");
  const auto at = std::find(args.begin(), args.end(), "--batch-size");
  if (at == args.end() || at + 1 == args.end()) std::abort();
  *(at + 1) = batch_size;
  args.insert(args.end(), extra.begin(), extra.end());
  d.shuffler().start(P2B_SHUFFLER_BIN, args, (d.dir() / "shuffler.log").string());
}

// The record count (applied + rejected) of every batch the analyzer's store
// says it applied; the analyzer must be stopped.
std::vector<int64_t> applied_batch_sizes(const fs::path& db) {
  std::vector<int64_t> sizes;
  sqlite3* raw = nullptr;
  const std::string uri = "file:" + db.string() + "?mode=ro";
  if (sqlite3_open_v2(uri.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) !=
      SQLITE_OK) {
    sqlite3_close(raw);
    ADD_FAILURE() << "cannot open " << db;
    return sizes;
  }
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(raw, "SELECT records + rejected FROM applied_batches", -1, &st, nullptr) ==
      SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW) sizes.push_back(sqlite3_column_int64(st, 0));
  }
  sqlite3_finalize(st);
  sqlite3_close(raw);
  return sizes;
}

TEST(FaultBounded, ABacklogLeavesInBatchesOfAtMostBatchSize) {
  Deployment d("bounded-backlog");
  const std::vector<Envelope> all = envelopes(20000);
  Ledger ledger;
  // A backlog of 20,000 unbatched records: no size trigger and no analyzer.
  start_shuffler(d, kNowhere, "1000000", {"--batch-seconds", "3600"});
  ASSERT_EQ(ledger.post_all(d.shuffler().port(), all, 500), all.size());
  ASSERT_EQ(d.shuffler().stop(), 0);

  d.start_analyzer();
  start_shuffler(d, d.analyzer().url(), "1000");
  ASSERT_TRUE(eventually(120, [&] { return applied_at_least(d.analyzer().port(), all.size()); }));
  EXPECT_EQ(d.shuffler().stop(), 0);
  EXPECT_EQ(d.analyzer().stop(), 0);
  const std::vector<int64_t> sizes = applied_batch_sizes(d.store_path());
  EXPECT_GE(sizes.size(), 20U);
  EXPECT_LE(*std::max_element(sizes.begin(), sizes.end()), 1000);
  std::printf("[ figure ] a 20,000-record backlog left in %zu batches, the largest %lld records\n",
              sizes.size(), static_cast<long long>(*std::max_element(sizes.begin(), sizes.end())));
  EXPECT_EQ(expect_nothing_lost(ledger, d.store_path()).acknowledged, all.size());
}

TEST(FaultBounded, ABatchOverTheAnalyzersLimitIsRefusedAndKeptUntilTheLimitIsRaised) {
  Deployment d("bounded-max-batch");
  const std::vector<Envelope> all = envelopes(2000);
  Ledger ledger;
  d.start_analyzer(1, 0, {"--max-batch-records", "1000"});
  // Only the size trigger may close the batch: with the fixture's 1 s timer a
  // loaded machine posts the 2,000 records over more than a second, the
  // timer closes batches under the limit, and nothing is ever refused.
  start_shuffler(d, d.analyzer().url(), "2000", {"--batch-seconds", "3600"});
  ASSERT_EQ(ledger.post_all(d.shuffler().port(), all, 500), all.size());
  const int s = d.shuffler().port();
  ASSERT_TRUE(eventually(30, [&] { return metric(s, "p2b_shuffler_delivery_failing") == 1.0; }));
  EXPECT_GE(metric(d.analyzer().port(), "p2b_analyzer_batches_refused_total{reason=\"too_large\"}"),
            1.0);
  EXPECT_EQ(metric(d.analyzer().port(), "p2b_analyzer_records_applied_total"), 0.0);
  EXPECT_EQ(metric(s, "p2b_shuffler_unacknowledged_batches"), 1.0);
  EXPECT_EQ(metric(s, "p2b_shuffler_spool_depth"), 2000.0);
  std::ifstream log(d.dir() / "shuffler.log");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("batch_too_large"), std::string::npos);
  EXPECT_NE(text.find("cannot be split"), std::string::npos);

  // The operator raises the analyzer's limit: the kept batch goes through.
  ASSERT_EQ(d.analyzer().stop(), 0);
  d.start_analyzer();  // the default limit, 65,536
  ASSERT_EQ(d.shuffler().stop(), 0);
  start_shuffler(d, d.analyzer().url(), "2000");
  ASSERT_TRUE(eventually(60, [&] { return applied_at_least(d.analyzer().port(), all.size()); }));
  EXPECT_EQ(d.shuffler().stop(), 0);
  EXPECT_EQ(d.analyzer().stop(), 0);
  EXPECT_EQ(expect_nothing_lost(ledger, d.store_path()).acknowledged, all.size());
}

TEST(FaultBounded, SigtermDuringABacklogWithAHungAnalyzerExitsWithinSeconds) {
  Deployment d("bounded-sigterm");
  const std::vector<Envelope> all = envelopes(5000);
  Ledger ledger;
  // 50 closed batches waiting in the spool.
  start_shuffler(d, kNowhere, "100");
  ASSERT_EQ(ledger.post_all(d.shuffler().port(), all, 500), all.size());
  ASSERT_TRUE(eventually(30, [&] {
    return metric(d.shuffler().port(), "p2b_shuffler_unacknowledged_batches") == 50.0;
  }));
  ASSERT_EQ(d.shuffler().stop(), 0);

  // An analyzer that takes each batch and never answers (for 60 s at most).
  std::atomic<bool> release{false};
  std::atomic<bool> answered{false};
  p2b_services::StandInAnalyzer hung([&](const httplib::Request&, httplib::Response& res) {
    for (int i = 0; i < 600 && !release; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    answered = true;
    res.status = 503;
  });
  start_shuffler(d, hung.url(), "100");
  ASSERT_TRUE(eventually(60, [&] { return !hung.bodies().empty(); }));
  const auto t0 = Clock::now();
  const int status = d.shuffler().stop(30);
  const double took = std::chrono::duration<double>(Clock::now() - t0).count();
  // The shuffler has exited while the analyzer still held the delivery: it
  // did not wait for it (the event, whatever the machine's load).
  const bool answered_before_exit = answered;
  release = true;
  hung.stop();
  EXPECT_EQ(status, 0);
  EXPECT_FALSE(answered_before_exit) << "SIGTERM must not wait for the delivery in flight";
  std::printf(
      "[ figure ] SIGTERM with a delivery in flight and 50 batches waiting: exit in %.2f s\n",
      took);

  // The next start with the real analyzer delivers everything, once.
  d.start_analyzer();
  start_shuffler(d, d.analyzer().url(), "100");
  ASSERT_TRUE(eventually(60, [&] { return applied_at_least(d.analyzer().port(), all.size()); }));
  EXPECT_EQ(d.shuffler().stop(), 0);
  EXPECT_EQ(d.analyzer().stop(), 0);
  EXPECT_GE(applied_batch_sizes(d.store_path()).size(), 50U);
  EXPECT_EQ(expect_nothing_lost(ledger, d.store_path()).acknowledged, all.size());
}

TEST(FaultBounded, ALowDiskRefusesNewReportsWhileTheBacklogDrains) {
  Deployment d("bounded-disk");
  const std::vector<Envelope> all = envelopes(3000);
  const std::vector<Envelope> later(all.begin() + 2000, all.end());
  const std::vector<Envelope> first(all.begin(), all.begin() + 2000);
  Ledger ledger;
  start_shuffler(d, kNowhere, "500");
  ASSERT_EQ(ledger.post_all(d.shuffler().port(), first, 500), first.size());
  ASSERT_EQ(d.shuffler().stop(), 0);

  // More free space than any disk has: the shuffler sees a full disk.
  d.start_analyzer();
  start_shuffler(d, d.analyzer().url(), "500", {"--min-free-disk", "1152921504606846976"});
  const int s = d.shuffler().port();
  EXPECT_EQ(ledger.post(s, later, 0, later.size()), 507);
  EXPECT_EQ(metric(s, "p2b_shuffler_disk_low"), 1.0);
  EXPECT_GE(metric(s, "p2b_shuffler_rejected_total{reason=\"insufficient_storage\"}"), 1.0);
  ASSERT_TRUE(eventually(60, [&] { return applied_at_least(d.analyzer().port(), first.size()); }));
  ASSERT_TRUE(eventually(10, [&] { return metric(s, "p2b_shuffler_spool_depth") == 0.0; }));
  EXPECT_EQ(d.shuffler().stop(), 0);
  EXPECT_EQ(d.analyzer().stop(), 0);
  EXPECT_EQ(expect_nothing_lost(ledger, d.store_path()).acknowledged, first.size());
}

// Not a test: the analyzer's peak RSS for one batch of the default
// --max-batch-records (65,536), printed for docs/benchmarks.md. Run with
//   test_fault_bounded --gtest_also_run_disabled_tests --gtest_filter='*PeakRss*'
TEST(FaultBounded, DISABLED_AnalyzerPeakRssForAMaxSizeBatch) {
  Deployment d("bounded-rss");
  const std::size_t n = 65536;
  const std::vector<Envelope> all = envelopes(n);
  Ledger ledger;
  start_shuffler(d, kNowhere, "1000000", {"--batch-seconds", "3600"});
  ASSERT_EQ(ledger.post_all(d.shuffler().port(), all, 1000), n);
  ASSERT_EQ(d.shuffler().stop(), 0);
  d.start_analyzer();
  const auto rss = [&](const char* field) {
    std::ifstream in("/proc/" + std::to_string(d.analyzer().pid()) + "/status");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::string(field).size()));
    }
    return -1L;
  };
  const long before = rss("VmHWM:");
  start_shuffler(d, d.analyzer().url(), std::to_string(n));
  ASSERT_TRUE(eventually(300, [&] { return applied_at_least(d.analyzer().port(), n); }));
  const long peak = rss("VmHWM:");
  std::printf(
      "[ figure ] analyzer peak RSS: %ld KiB at start, %ld KiB after one %zu-record batch\n",
      before, peak, n);
  EXPECT_EQ(d.shuffler().stop(), 0);
  EXPECT_EQ(d.analyzer().stop(), 0);
  EXPECT_EQ(expect_nothing_lost(ledger, d.store_path()).acknowledged, n);
}

}  // namespace
