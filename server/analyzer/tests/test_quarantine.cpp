// Records the analyzer cannot open or use are never acknowledged as applied:
// they are quarantined in the batch's own commit, counted in its ack, logged
// at error level, bounded by max_quarantine, and applied by a later start
// that has the missing key.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analyzer_test_support.hpp"
#include "wire/batch_ack.hpp"

namespace {

using analyzer_test::Deployment;
using analyzer_test::TempDir;
namespace an = p2b::analyzer;
namespace sv = p2b::server;

// An analyzer box key the devices of these tests may seal to instead.
sv::BoxKey other_box_key() {
  static const sv::BoxKey key = [] {
    uint8_t pk[crypto_box_PUBLICKEYBYTES], sk[crypto_box_SECRETKEYBYTES];
    crypto_box_keypair(pk, sk);
    sv::BoxKey k{};
    sv::make_box_key(pk, sk, &k);
    return k;
  }();
  return key;
}

struct Started {
  std::ostringstream log_text;
  an::Logger log{&log_text};
  an::Metrics metrics;
  std::unique_ptr<an::Analyzer> analyzer;
  Started(const Deployment& dep, an::SqliteModelStore* store, an::KeyRing keys,
          uint32_t actions = 4, uint64_t max_quarantine = 1000) {
    an::AnalyzerSettings s = analyzer_test::settings(actions);
    s.max_quarantine = max_quarantine;
    analyzer = std::make_unique<an::Analyzer>(std::move(s), dep.codebook, std::move(keys), store,
                                              &metrics, &log);
  }
  std::string text() const { return metrics.prometheus_text(); }
};

sv::BatchAck ack_of(const an::BatchOutcome& out) {
  sv::BatchAck ack;
  EXPECT_EQ(sv::verify_ack(out.ack.data(), out.ack.size(), p2b_test::test_keys().verify_pk, &ack),
            sv::AckCheck::ok);
  return ack;
}

void expect_line(const std::string& text, const std::string& line) {
  EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
}

TEST(AnalyzerQuarantine, RecordsThatCannotBeUsedAreQuarantinedAndCountedInTheAck) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  an::SqliteModelStore store(tmp.file("s.db"), analyzer_test::test_mac_keys());
  Started run(dep, &store, dep.key_ring(), 2);
  const sv::BoxKey other = other_box_key();
  sv::Batch batch = analyzer_test::make_batch(dep, {{1, 0, 1.0F}, {2, 1, 0.0F}});
  batch.records.push_back(dep.record(3, 0, 1.0F, &other));  // unknown_key
  batch.records.push_back(dep.record(4, 3, 1.0F));          // action_out_of_range (2 actions)
  batch.records.push_back(batch.records[0]);                // replayed
  const an::BatchOutcome out = analyzer_test::apply(*run.analyzer, batch);
  ASSERT_EQ(out.result, an::BatchResult::applied);
  EXPECT_EQ(out.applied, 2u);
  EXPECT_EQ(out.quarantined, 2u);
  EXPECT_EQ(out.rejected, 3u);
  const sv::BatchAck ack = ack_of(out);
  EXPECT_EQ(ack.records, 5u);
  EXPECT_EQ(ack.applied, 2u);
  EXPECT_EQ(ack.quarantined, 2u);
  EXPECT_EQ(ack.refused[static_cast<int>(an::RejectReason::replayed)], 1u);
  EXPECT_EQ(ack.accounted(), 5u);
  EXPECT_EQ(store.quarantine_size(), 2u);
  const std::vector<an::QuarantinedRecord> held = store.quarantined(batch.id);
  ASSERT_EQ(held.size(), 2u);
  EXPECT_EQ(held[0].position, 2u);
  EXPECT_EQ(held[0].inner, batch.records[2].inner);
  EXPECT_EQ(held[1].position, 3u);
  EXPECT_EQ(held[1].crowd_id, 4u);
  // The duplicate's ack carries the same counts.
  EXPECT_EQ(analyzer_test::apply(*run.analyzer, batch).ack, out.ack);

  const std::string text = run.text();
  expect_line(text, "p2b_analyzer_records_quarantined_total{reason=\"unknown_key\"} 1");
  expect_line(text, "p2b_analyzer_records_quarantined_total{reason=\"action_out_of_range\"} 1");
  expect_line(text, "p2b_analyzer_quarantine_records 2");
  const std::string log = run.log_text.str();
  expect_line(log, "\"level\":\"error\"");
  expect_line(log, "\"event\":\"records_quarantined\"");
  expect_line(log, "\"quarantined_unknown_key\":1");
  expect_line(log, "\"quarantined_action_out_of_range\":1");
}

TEST(AnalyzerQuarantine, AQuarantinedRecordSentAgainIsAReplay) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  an::SqliteModelStore store(tmp.file("s.db"), analyzer_test::test_mac_keys());
  Started run(dep, &store, dep.key_ring());
  const sv::BoxKey other = other_box_key();
  sv::Batch first;
  randombytes_buf(first.id.data(), first.id.size());
  first.thresholds.l = analyzer_test::kTestThreshold;
  first.records.push_back(dep.record(1, 0, 1.0F, &other));
  ASSERT_EQ(analyzer_test::apply(*run.analyzer, first).quarantined, 1u);
  sv::Batch again = first;
  randombytes_buf(again.id.data(), again.id.size());
  const an::BatchOutcome out = analyzer_test::apply(*run.analyzer, again);
  EXPECT_EQ(out.quarantined, 0u);
  EXPECT_EQ(out.by_reason[static_cast<int>(an::RejectReason::replayed)], 1u);
  EXPECT_EQ(store.quarantine_size(), 1u);
}

TEST(AnalyzerQuarantine, ABatchThatWouldOverfillItIsRefusedWholeWithNothingApplied) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  an::SqliteModelStore store(tmp.file("s.db"), analyzer_test::test_mac_keys());
  Started run(dep, &store, dep.key_ring(), 4, 2);
  const sv::BoxKey other = other_box_key();
  sv::Batch batch = analyzer_test::make_batch(dep, {{1, 0, 1.0F}});
  for (uint32_t i = 0; i < 3; ++i) batch.records.push_back(dep.record(2, 1, 1.0F, &other));
  const an::BatchOutcome out = analyzer_test::apply(*run.analyzer, batch);
  EXPECT_EQ(out.result, an::BatchResult::quarantine_full);
  EXPECT_TRUE(out.ack.empty());
  EXPECT_FALSE(store.find_batch(batch.id).has_value());
  EXPECT_EQ(store.quarantine_size(), 0u);
  EXPECT_EQ(run.analyzer->model(an::ModelKind::private_reports), nullptr);
  expect_line(run.text(), "p2b_analyzer_batches_refused_total{reason=\"quarantine_full\"} 1");
  expect_line(run.log_text.str(), "\"event\":\"quarantine_full\"");
  // A batch that fits still goes through.
  batch.records.pop_back();
  EXPECT_EQ(analyzer_test::apply(*run.analyzer, batch).quarantined, 2u);
  // And a clean batch is never held up by a full quarantine.
  EXPECT_EQ(
      analyzer_test::apply(*run.analyzer, analyzer_test::make_batch(dep, {{3, 0, 1.0F}})).applied,
      1u);
}

TEST(AnalyzerQuarantine, AStartWithTheMissingKeyAppliesTheQuarantineOnce) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  const sv::BoxKey rotated = other_box_key();
  std::vector<uint8_t> model_before;
  sv::Batch batch;
  {
    an::SqliteModelStore store(tmp.file("s.db"), analyzer_test::test_mac_keys());
    Started run(dep, &store, an::KeyRing::from_keys({rotated}, p2b_test::test_keys().sign_sk));
    // Sealed to the old key, which this run was (wrongly) started without.
    batch = analyzer_test::make_batch(dep, {{1, 0, 1.0F}, {1, 1, 0.5F}, {2, 2, 1.0F}});
    batch.records.push_back(dep.record(3, 3, 1.0F, &rotated));  // the new key: applied now
    const an::BatchOutcome out = analyzer_test::apply(*run.analyzer, batch);
    EXPECT_EQ(out.applied, 1u);
    EXPECT_EQ(out.quarantined, 3u);
    EXPECT_EQ(out.by_reason[static_cast<int>(an::RejectReason::unknown_key)], 3u);
  }
  {
    // Restarted without the old key again: nothing changes, an error says so.
    an::SqliteModelStore store(tmp.file("s.db"), analyzer_test::test_mac_keys());
    Started run(dep, &store, an::KeyRing::from_keys({rotated}, p2b_test::test_keys().sign_sk));
    EXPECT_EQ(store.quarantine_size(), 3u);
    expect_line(run.log_text.str(), "\"event\":\"quarantine_waiting\"");
    expect_line(run.text(), "p2b_analyzer_quarantine_records 3");
    model_before = run.analyzer->model(an::ModelKind::private_reports)->bundle;
  }
  {
    an::SqliteModelStore store(tmp.file("s.db"), analyzer_test::test_mac_keys());
    Started run(dep, &store,
                an::KeyRing::from_keys({dep.analyzer, rotated}, p2b_test::test_keys().sign_sk));
    EXPECT_EQ(store.quarantine_size(), 0u);
    const an::Statistics stats = run.analyzer->statistics(an::ModelKind::private_reports);
    EXPECT_EQ(stats.total_count(), 4u);
    for (uint32_t arm = 0; arm < 4; ++arm) EXPECT_EQ(stats.count(arm), 1u) << arm;
    EXPECT_NE(run.analyzer->model(an::ModelKind::private_reports)->bundle, model_before);
    expect_line(run.text(), "p2b_analyzer_records_released_total{outcome=\"applied\"} 3");
    expect_line(run.text(), "p2b_analyzer_quarantine_records 0");
    expect_line(run.log_text.str(), "\"event\":\"quarantine_released\"");
    // The released records are replays from now on, and the batch a duplicate.
    const an::BatchOutcome dup = analyzer_test::apply(*run.analyzer, batch);
    EXPECT_EQ(dup.result, an::BatchResult::duplicate);
    sv::Batch replay = batch;
    randombytes_buf(replay.id.data(), replay.id.size());
    EXPECT_EQ(analyzer_test::apply(*run.analyzer, replay)
                  .by_reason[static_cast<int>(an::RejectReason::replayed)],
              4u);
  }
  {
    // A later start finds nothing to release and applies nothing twice.
    an::SqliteModelStore store(tmp.file("s.db"), analyzer_test::test_mac_keys());
    Started run(dep, &store,
                an::KeyRing::from_keys({dep.analyzer, rotated}, p2b_test::test_keys().sign_sk));
    EXPECT_EQ(run.analyzer->statistics(an::ModelKind::private_reports).total_count(), 4u);
  }
}

TEST(AnalyzerQuarantine, OnReleaseACrowdBelowTheThresholdStaysRefused) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  const sv::BoxKey rotated = other_box_key();
  {
    an::SqliteModelStore store(tmp.file("s.db"), analyzer_test::test_mac_keys());
    an::AnalyzerSettings s = analyzer_test::settings(4, 2);
    std::ostringstream text;
    an::Logger log(&text);
    an::Metrics metrics;
    an::Analyzer analyzer(s, dep.codebook,
                          an::KeyRing::from_keys({rotated}, p2b_test::test_keys().sign_sk), &store,
                          &metrics, &log);
    // Crowd 1 has two reports sealed to the old key, crowd 2 one.
    sv::Batch batch = analyzer_test::make_batch(dep, {{1, 0, 1.0F}, {1, 1, 1.0F}, {2, 0, 1.0F}});
    batch.thresholds.l = 2;
    EXPECT_EQ(analyzer_test::apply(analyzer, batch).quarantined, 3u);
  }
  an::SqliteModelStore store(tmp.file("s.db"), analyzer_test::test_mac_keys());
  std::ostringstream text;
  an::Logger log(&text);
  an::Metrics metrics;
  an::Analyzer analyzer(
      analyzer_test::settings(4, 2), dep.codebook,
      an::KeyRing::from_keys({dep.analyzer, rotated}, p2b_test::test_keys().sign_sk), &store,
      &metrics, &log);
  EXPECT_EQ(analyzer.statistics(an::ModelKind::private_reports).total_count(), 2u);
  EXPECT_EQ(store.quarantine_size(), 0u);
  expect_line(metrics.prometheus_text(),
              "p2b_analyzer_records_released_total{outcome=\"below_threshold\"} 1");
}

}  // namespace
