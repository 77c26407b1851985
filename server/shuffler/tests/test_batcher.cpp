// Batch delivery: records leave the spool only when the analyzer answers
// with a signed ack of that very batch, a refused or unacknowledged batch is
// re-sent under the same id with the same bytes, an empty batch is never
// sent, and a restart delivers what the last run left.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "shuffler/batcher.hpp"
#include "shuffler/sqlite_spool.hpp"
#include "shuffler_test_support.hpp"
#include "wire/batch_format.hpp"

namespace {

using shuffler_test::eventually;
using shuffler_test::fill;

using p2b::shuffler::Batcher;
using p2b::shuffler::BatchingPolicy;
using p2b::shuffler::SqliteSpool;
using shuffler_test::record;

// The spool's one partition, not 0, so a batch shows it carries its own.
constexpr uint32_t kPartition = 3;

p2b::server::Batch decoded(const std::vector<uint8_t>& body) {
  return shuffler_test::verified(body).batch;
}

BatchingPolicy policy(std::size_t threshold, std::size_t batch_size = 1000) {
  BatchingPolicy p;
  p.partition = kPartition;
  p.batch_size = batch_size;
  p.interval = std::chrono::hours(1);
  p.threshold = {threshold, 0};
  p.min_retry = std::chrono::milliseconds(10);
  p.max_retry = std::chrono::milliseconds(50);
  return p;
}

TEST(ShufflerBatcher, DeletesOnlyOnAcknowledgementAndResendsWithTheSameId) {
  shuffler_test::TempDir dir;
  SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key(), kPartition);
  shuffler_test::FakeAnalyzer analyzer;
  p2b::shuffler::Metrics metrics;
  Batcher batcher(spool, analyzer, metrics, policy(3), shuffler_test::batch_keys());
  fill(&spool, 1, 5);
  fill(&spool, 2, 2);  // below L = 3

  const auto closed = batcher.close_batch();
  EXPECT_EQ(closed.kept, 5U);
  EXPECT_EQ(closed.thresholded, 2U);
  EXPECT_EQ(metrics.thresholded.load(), 2U);

  analyzer.answer(503);
  EXPECT_FALSE(batcher.deliver_pending());
  analyzer.answer(500);
  EXPECT_FALSE(batcher.deliver_pending());
  EXPECT_EQ(spool.depth(), 5U);
  EXPECT_EQ(metrics.forwarded.load(), 0U);
  EXPECT_EQ(metrics.forward_failures.load(), 2U);

  analyzer.answer(200);
  EXPECT_TRUE(batcher.deliver_pending());
  EXPECT_EQ(spool.depth(), 0U);
  EXPECT_EQ(metrics.forwarded.load(), 5U);
  EXPECT_EQ(metrics.batches.load(), 1U);

  ASSERT_EQ(analyzer.received.size(), 3U);
  const auto first = decoded(analyzer.received[0]);
  EXPECT_EQ(first.records.size(), 5U);
  EXPECT_EQ(first.partition, kPartition);
  for (const auto& body : analyzer.received) EXPECT_EQ(body, analyzer.received[0]);
  for (const auto& r : first.records) {
    EXPECT_EQ(r.crowd_id, 1U);
    EXPECT_EQ(shuffler_test::crowd_of(r.inner), 1U);
  }
}

TEST(ShufflerBatcher, A200WithoutAValidAckOfThatBatchDeletesNothing) {
  shuffler_test::TempDir dir;
  SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key(), kPartition);
  shuffler_test::FakeAnalyzer analyzer;
  p2b::shuffler::Metrics metrics;
  Batcher batcher(spool, analyzer, metrics, policy(1), shuffler_test::batch_keys());
  fill(&spool, 1, 4);
  batcher.close_batch();
  for (const auto mode :
       {shuffler_test::AckMode::none, shuffler_test::AckMode::forged,
        shuffler_test::AckMode::other_digest, shuffler_test::AckMode::short_count}) {
    analyzer.acks(mode);
    EXPECT_FALSE(batcher.deliver_pending());
    EXPECT_EQ(spool.depth(), 4U);
  }
  EXPECT_EQ(metrics.bad_acks.load(), 4U);
  EXPECT_EQ(metrics.forward_failures.load(), 4U);
  EXPECT_EQ(metrics.forwarded.load(), 0U);
  EXPECT_NE(metrics.render(4).find("p2b_shuffler_bad_acks_total 4"), std::string::npos);
  analyzer.acks(shuffler_test::AckMode::valid);
  EXPECT_TRUE(batcher.deliver_pending());
  EXPECT_EQ(spool.depth(), 0U);
  ASSERT_EQ(analyzer.received.size(), 5U);
  for (const auto& body : analyzer.received) EXPECT_EQ(body, analyzer.received[0]);
}

TEST(ShufflerBatcher, AnEmptyBatchIsNeverSent) {
  shuffler_test::TempDir dir;
  SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key(), kPartition);
  shuffler_test::FakeAnalyzer analyzer;
  p2b::shuffler::Metrics metrics;
  Batcher batcher(spool, analyzer, metrics, policy(10), shuffler_test::batch_keys());
  fill(&spool, 1, 9);
  EXPECT_EQ(batcher.close_batch().thresholded, 9U);
  EXPECT_TRUE(batcher.deliver_pending());
  EXPECT_EQ(analyzer.calls(), 0U);
  EXPECT_EQ(spool.depth(), 0U);
}

TEST(ShufflerBatcher, ARestartFirstDeliversWhatTheLastRunLeft) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("spool.db");
  p2b::server::Batch left;
  {
    SqliteSpool spool(path, shuffler_test::spool_key(), kPartition);
    shuffler_test::FakeAnalyzer down;
    down.answer(502);
    p2b::shuffler::Metrics metrics;
    Batcher batcher(spool, down, metrics, policy(1), shuffler_test::batch_keys());
    fill(&spool, 4, 20);
    batcher.close_batch();
    EXPECT_FALSE(batcher.deliver_pending());
    left = decoded(down.received.at(0));
  }  // the "crash": nothing acknowledged

  SqliteSpool spool(path, shuffler_test::spool_key(), kPartition);
  shuffler_test::FakeAnalyzer up;
  p2b::shuffler::Metrics metrics;
  Batcher batcher(spool, up, metrics, policy(1), shuffler_test::batch_keys());
  batcher.start();
  ASSERT_TRUE(eventually([&] { return spool.depth() == 0; }));
  batcher.stop();
  ASSERT_EQ(up.received.size(), 1U);
  const auto resent = decoded(up.received[0]);
  EXPECT_EQ(resent.id, left.id);
  EXPECT_EQ(resent.partition, left.partition);
  EXPECT_EQ(resent.records, left.records);
}

TEST(ShufflerBatcher, TheThreadClosesOnSizeAndRetriesUntilTheAnalyzerIsBack) {
  shuffler_test::TempDir dir;
  SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key(), kPartition);
  shuffler_test::FakeAnalyzer analyzer;
  analyzer.answer(500);
  p2b::shuffler::Metrics metrics;
  Batcher batcher(spool, analyzer, metrics, policy(1, 10), shuffler_test::batch_keys());
  batcher.start();
  fill(&spool, 1, 6);
  batcher.notify_stored(6);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(analyzer.calls(), 0U);  // below the size, and the interval is an hour

  fill(&spool, 2, 4);
  batcher.notify_stored(4);
  ASSERT_TRUE(eventually([&] { return analyzer.calls() >= 2; }));  // closed, and retried
  EXPECT_EQ(spool.depth(), 10U);
  analyzer.answer(200);
  ASSERT_TRUE(eventually([&] { return spool.depth() == 0; }));
  batcher.stop();
  EXPECT_EQ(metrics.forwarded.load(), 10U);
}

TEST(ShufflerBatcher, TheThreadClosesOnTime) {
  shuffler_test::TempDir dir;
  SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key(), kPartition);
  shuffler_test::FakeAnalyzer analyzer;
  p2b::shuffler::Metrics metrics;
  BatchingPolicy p = policy(1);
  p.interval = std::chrono::milliseconds(100);
  Batcher batcher(spool, analyzer, metrics, p, shuffler_test::batch_keys());
  batcher.start();
  fill(&spool, 1, 3);
  batcher.notify_stored(3);
  ASSERT_TRUE(eventually([&] { return spool.depth() == 0; }));
  batcher.stop();
  EXPECT_EQ(analyzer.calls(), 1U);
}

}  // namespace
