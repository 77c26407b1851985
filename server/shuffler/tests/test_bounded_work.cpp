// Bounded work in the batcher and the intake: a backlog leaves in batches
// of at most --batch-size, closed and delivered one after another; a failing
// close or delivery backs off instead of spinning and logs once per change
// of state; stop() cuts a delivery short and leaves its batch in the spool;
// a disk below --min-free-disk turns new reports away with 507.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "shuffler/batcher.hpp"
#include "shuffler/disk_guard.hpp"
#include "shuffler/intake.hpp"
#include "shuffler/readiness_checks.hpp"
#include "shuffler/sqlite_spool.hpp"
#include "shuffler_test_support.hpp"

namespace {

using shuffler_test::eventually;
using shuffler_test::fill;

using p2b::shuffler::Batcher;
using p2b::shuffler::BatchingPolicy;
using p2b::shuffler::SqliteSpool;
using shuffler_test::record;
using Clock = std::chrono::steady_clock;

BatchingPolicy policy(std::size_t batch_size) {
  BatchingPolicy p;
  p.batch_size = batch_size;
  p.interval = std::chrono::hours(1);
  p.threshold = {1, 0};
  p.min_retry = std::chrono::milliseconds(10);
  p.max_retry = std::chrono::milliseconds(80);
  return p;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

// The SQLite spool, with close_batch failing on demand (a storage fault).
class FlakySpool final : public shuffler_test::ForwardingSpool {
 public:
  explicit FlakySpool(const std::string& path)
      : ForwardingSpool(real_), real_(path, shuffler_test::spool_key()) {}
  void fail_closes(std::string why) {
    const std::lock_guard<std::mutex> lock(mu_);
    failure_ = std::move(why);
  }
  std::size_t close_tries() const { return close_tries_; }
  SqliteSpool& real() { return real_; }

  p2b::shuffler::ClosedBatch close_batch(const p2b::server::BatchId& id,
                                         const p2b::shuffler::Lease& lease, std::size_t max_records,
                                         const p2b::shuffler::BatchSelector& select) override {
    ++close_tries_;
    {
      const std::lock_guard<std::mutex> lock(mu_);
      if (!failure_.empty()) throw p2b::shuffler::SpoolError(failure_);
    }
    return real_.close_batch(id, lease, max_records, select);
  }

 private:
  SqliteSpool real_;
  std::mutex mu_;
  std::string failure_;
  std::atomic<std::size_t> close_tries_{0};
};

TEST(ShufflerBoundedWork, ABacklogLeavesInBatchesOfAtMostBatchSizeOneAfterAnother) {
  shuffler_test::TempDir dir;
  SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key());
  fill(&spool, 1, 2500);
  // How many batches were waiting each time one was delivered.
  std::vector<std::size_t> waiting;
  class Recording final : public p2b::shuffler::AnalyzerSink {
   public:
    Recording(SqliteSpool& s, std::vector<std::size_t>& w) : spool(s), waiting(w) {}
    int deliver(const std::vector<uint8_t>& b, std::string* body, std::string* detail) override {
      waiting.push_back(spool.unacknowledged_batches());
      return inner.deliver(b, body, detail);
    }
    SqliteSpool& spool;
    std::vector<std::size_t>& waiting;
    shuffler_test::FakeAnalyzer inner;
  } analyzer(spool, waiting);
  p2b::shuffler::Metrics metrics;
  BatchingPolicy p = policy(1000);
  p.interval = std::chrono::milliseconds(300);  // the last 500 close on time
  Batcher batcher(spool, analyzer, metrics, p, shuffler_test::batch_keys());
  batcher.start();
  ASSERT_TRUE(eventually([&] { return spool.depth() == 0; }));
  batcher.stop();
  ASSERT_EQ(analyzer.inner.received.size(), 3U);
  std::size_t total = 0;
  for (const auto& body : analyzer.inner.received) {
    const std::size_t n = shuffler_test::verified(body).batch.records.size();
    EXPECT_LE(n, 1000U);
    total += n;
  }
  EXPECT_EQ(total, 2500U);
  for (const std::size_t w : waiting) EXPECT_EQ(w, 1U);  // closed only after the last left
  EXPECT_EQ(metrics.batches.load(), 3U);
  EXPECT_EQ(metrics.unacknowledged_batches.load(), 0U);
}

TEST(ShufflerBoundedWork, CloseBatchNeverTakesMoreThanBatchSize) {
  shuffler_test::TempDir dir;
  SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key());
  shuffler_test::FakeAnalyzer analyzer;
  p2b::shuffler::Metrics metrics;
  Batcher batcher(spool, analyzer, metrics, policy(7), shuffler_test::batch_keys());
  fill(&spool, 1, 20);
  EXPECT_EQ(batcher.close_batch().kept, 7U);
  EXPECT_EQ(batcher.close_batch().kept, 7U);
  EXPECT_EQ(batcher.close_batch().kept, 6U);
  EXPECT_EQ(batcher.close_batch().taken, 0U);
  EXPECT_EQ(spool.unacknowledged_batches(), 3U);
}

TEST(ShufflerBoundedWork, AFailingCloseBacksOffAndLogsOncePerStateChange) {
  shuffler_test::TempDir dir;
  FlakySpool spool(dir.file("spool.db"));
  shuffler_test::FakeAnalyzer analyzer;
  p2b::shuffler::Metrics metrics;
  Batcher batcher(spool, analyzer, metrics, policy(10), shuffler_test::batch_keys());
  fill(&spool.real(), 1, 20);
  spool.fail_closes("disk I/O error");
  testing::internal::CaptureStderr();
  batcher.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  // Pauses of 10, 20, 40, then 80 ms (less up to half, the jitter): at most
  // about 25 tries in a second; a spin makes thousands. A slow machine only
  // makes fewer, so the floor waits for the tries instead of the clock.
  EXPECT_LE(spool.close_tries(), 40U);
  ASSERT_TRUE(eventually([&] { return spool.close_tries() >= 5; }));
  const std::size_t tries = spool.close_tries();
  const p2b::shuffler::BatcherStatus failing = batcher.status();
  EXPECT_TRUE(failing.running);
  EXPECT_TRUE(failing.closing.failing);
  EXPECT_EQ(failing.closing.reason, "disk I/O error");
  EXPECT_FALSE(p2b::shuffler::batcher_check(failing).ok);
  EXPECT_TRUE(metrics.close_failing.load());
  EXPECT_GE(metrics.close_failures.load(), tries - 1);

  spool.fail_closes("database is locked");
  ASSERT_TRUE(eventually([&] { return batcher.status().closing.reason == "database is locked"; }));
  spool.fail_closes("");
  ASSERT_TRUE(eventually([&] { return spool.real().depth() == 0; }));
  batcher.stop();
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_of(log, "\"batch_close_failing\""), 1U) << log;
  EXPECT_EQ(count_of(log, "\"batch_close_failure_changed\""), 1U) << log;
  EXPECT_EQ(count_of(log, "\"batch_close_recovered\""), 1U) << log;
  EXPECT_NE(log.find("\"level\":\"error\",\"event\":\"batch_close_failing\""), std::string::npos);
  EXPECT_NE(log.find("\"failed_attempts\""), std::string::npos);
  EXPECT_FALSE(metrics.close_failing.load());
  EXPECT_TRUE(p2b::shuffler::batcher_check(batcher.status()).ok == false);  // stopped now
}

TEST(ShufflerBoundedWork, AFailingDeliveryBacksOffAndLogsOncePerStateChange) {
  shuffler_test::TempDir dir;
  SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key());
  shuffler_test::FakeAnalyzer analyzer;
  analyzer.answer(503);
  p2b::shuffler::Metrics metrics;
  Batcher batcher(spool, analyzer, metrics, policy(5), shuffler_test::batch_keys());
  fill(&spool, 1, 5);
  testing::internal::CaptureStderr();
  batcher.start();
  batcher.notify_stored(5);
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  EXPECT_LE(analyzer.calls(), 40U);  // backs off, as above
  ASSERT_TRUE(eventually([&] { return analyzer.calls() >= 5; }));
  const std::size_t tries = analyzer.calls();
  const p2b::shuffler::BatcherStatus s = batcher.status();
  EXPECT_TRUE(s.delivery.failing);
  EXPECT_EQ(s.delivery.reason, "HTTP 503");
  EXPECT_EQ(s.unacknowledged_batches, 1U);
  EXPECT_TRUE(metrics.delivery_failing.load());
  EXPECT_GE(metrics.delivery_consecutive_failures.load(), tries - 1);
  EXPECT_EQ(metrics.unacknowledged_batches.load(), 1U);
  EXPECT_GE(metrics.oldest_unacknowledged_since_ms.load(), 0);
  const std::string text = metrics.render(5);
  EXPECT_NE(text.find("p2b_shuffler_delivery_failing 1"), std::string::npos);
  EXPECT_NE(text.find("p2b_shuffler_unacknowledged_batches 1"), std::string::npos);
  // Within the grace delivery is still ready, with the backlog and error.
  const auto ready = p2b::shuffler::delivery_check(s, std::chrono::hours(1));
  EXPECT_TRUE(ready.ok);
  EXPECT_NE(ready.detail.find("1 batches unacknowledged"), std::string::npos);
  EXPECT_NE(ready.detail.find("HTTP 503"), std::string::npos);
  EXPECT_FALSE(p2b::shuffler::delivery_check(s, std::chrono::milliseconds(100)).ok);

  analyzer.answer(413);  // another reason: logged once more
  ASSERT_TRUE(eventually([&] {
    return batcher.status().delivery.reason.find("cannot be split") != std::string::npos;
  }));
  analyzer.answer(200);
  ASSERT_TRUE(eventually([&] { return spool.depth() == 0; }));
  batcher.stop();
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_of(log, "\"batch_delivery_failing\""), 1U) << log;
  EXPECT_EQ(count_of(log, "\"batch_delivery_failure_changed\""), 1U) << log;
  EXPECT_EQ(count_of(log, "\"batch_delivery_recovered\""), 1U) << log;
  EXPECT_FALSE(metrics.delivery_failing.load());
  EXPECT_EQ(metrics.delivery_consecutive_failures.load(), 0U);
  EXPECT_EQ(metrics.unacknowledged_batches.load(), 0U);
  EXPECT_EQ(metrics.oldest_unacknowledged_since_ms.load(), -1);
}

// An analyzer that never answers until cancelled, as a hung one would.
class HungAnalyzer final : public p2b::shuffler::AnalyzerSink {
 public:
  int deliver(const std::vector<uint8_t>&, std::string*, std::string* detail) override {
    std::unique_lock<std::mutex> lock(mu_);
    ++calls_;
    entered_.notify_all();
    cancelled_cv_.wait_for(lock, std::chrono::seconds(60), [&] { return cancelled_; });
    *detail = "cancelled";
    return -1;
  }
  void cancel() override {
    const std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    cancelled_cv_.notify_all();
  }
  bool wait_for_call() {
    std::unique_lock<std::mutex> lock(mu_);
    return entered_.wait_for(lock, std::chrono::seconds(10), [&] { return calls_ > 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable entered_, cancelled_cv_;
  int calls_ = 0;
  bool cancelled_ = false;
};

TEST(ShufflerBoundedWork, StopCutsADeliveryShortAndTheBatchStaysForTheNextStart) {
  shuffler_test::TempDir dir;
  SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key());
  HungAnalyzer analyzer;
  p2b::shuffler::Metrics metrics;
  Batcher batcher(spool, analyzer, metrics, policy(5), shuffler_test::batch_keys());
  fill(&spool, 1, 15);
  testing::internal::CaptureStderr();
  batcher.start();
  batcher.notify_stored(15);
  ASSERT_TRUE(analyzer.wait_for_call());
  const auto t0 = Clock::now();
  batcher.stop();
  const auto took = Clock::now() - t0;
  const std::string log = testing::internal::GetCapturedStderr();
  // The hung analyzer would hold the call for 60 s; a stop that cut it is
  // far quicker, whatever the machine's load.
  EXPECT_LT(took, std::chrono::seconds(30));
  EXPECT_EQ(spool.depth(), 15U);  // nothing lost, nothing deleted
  // A cut-short delivery is not the analyzer's failure.
  EXPECT_EQ(count_of(log, "batch_delivery_failing"), 0U) << log;
  EXPECT_EQ(metrics.forward_failures.load(), 0U);
}

TEST(ShufflerBoundedWork, ALowDiskRefusesReportsWith507AndStoresNothing) {
  shuffler_test::TempDir dir;
  SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key());
  p2b::shuffler::Metrics metrics;
  // More than any disk has free: always low.
  p2b::shuffler::DiskGuard low(dir.file("spool.db"), uint64_t{1} << 60, metrics);
  const shuffler_test::Deployment dep;
  p2b::shuffler::ReportIntake intake({dep.shuffler}, spool, metrics, 1 << 20, {}, &low);
  testing::internal::CaptureStderr();
  for (int i = 0; i < 3; ++i) {
    const auto reply = intake.handle(shuffler_test::body_of({dep.seal(1)}));
    EXPECT_EQ(reply.status, 507);
    EXPECT_NE(reply.json.find("\"error\":\"insufficient_storage\""), std::string::npos);
  }
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_of(log, "disk_space_low"), 1U) << log;  // once, not per request
  EXPECT_EQ(spool.depth(), 0U);
  EXPECT_TRUE(metrics.disk_low.load());
  EXPECT_GT(metrics.disk_free_bytes.load(), 0U);
  const std::string text = metrics.render(0);
  EXPECT_NE(text.find("p2b_shuffler_rejected_total{reason=\"insufficient_storage\"} 3"),
            std::string::npos);
  EXPECT_NE(text.find("p2b_shuffler_disk_low 1"), std::string::npos);
  EXPECT_FALSE(p2b::shuffler::disk_check(low).ok);

  p2b::shuffler::Metrics ok_metrics;
  p2b::shuffler::DiskGuard off(dir.file("spool.db"), 0, ok_metrics);  // 0: off
  p2b::shuffler::ReportIntake open({dep.shuffler}, spool, ok_metrics, 1 << 20, {}, &off);
  EXPECT_EQ(open.handle(shuffler_test::body_of({dep.seal(1)})).status, 202);
  EXPECT_TRUE(p2b::shuffler::disk_check(off).ok);
}

TEST(ShufflerBoundedWork, TheDiskIsReadAtMostOncePerInterval) {
  shuffler_test::TempDir dir;
  p2b::shuffler::Metrics metrics;
  p2b::shuffler::DiskGuard guard(dir.file(""), 1, metrics, std::chrono::hours(1));
  EXPECT_FALSE(guard.low());
  metrics.disk_free_bytes = 0;  // a reread would set it again
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(guard.low());
  EXPECT_EQ(metrics.disk_free_bytes.load(), 0U);
}

}  // namespace
