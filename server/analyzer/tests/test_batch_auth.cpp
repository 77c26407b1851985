// Authenticated hops and exact crowds, in-process: a batch is checked against
// the pinned shuffler keys before any state is read, a batch id is bound to
// its digest, the ack proves which batch was applied, and records are
// dropped for a replayed inner, a crowd id that is not their code, and a
// crowd too small once garbage and replays are gone.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "analyzer_test_support.hpp"
#include "wire/batch_ack.hpp"

namespace {

using analyzer_test::Deployment;
using analyzer_test::Harness;
using analyzer_test::TempDir;
namespace an = p2b::analyzer;
namespace sv = p2b::server;

uint64_t reason(const an::BatchOutcome& out, an::RejectReason r) {
  return out.by_reason[static_cast<int>(r)];
}

// Everything an attacker could hope to move.
struct Snapshot {
  an::Statistics stats;
  uint64_t version;
  std::vector<uint8_t> bundle;
  explicit Snapshot(const an::Analyzer& a)
      : stats(a.statistics(an::ModelKind::private_reports)),
        version(a.model(an::ModelKind::private_reports)
                    ? a.model(an::ModelKind::private_reports)->version
                    : 0),
        bundle(a.model(an::ModelKind::private_reports)
                   ? a.model(an::ModelKind::private_reports)->bundle
                   : std::vector<uint8_t>{}) {}
  bool operator==(const Snapshot& o) const {
    return stats == o.stats && version == o.version && bundle == o.bundle;
  }
};

TEST(AnalyzerBatchAuth, ForgedBatchesChangeNothingAndClaimNoId) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2);
  const sv::Batch real = analyzer_test::make_batch(dep, {{1, 0, 1.0F}, {2, 1, 0.5F}});
  // The attacker knows the id (it is not secret) and forges a batch with it:
  // signed by a key nobody pinned...
  uint8_t pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
  crypto_sign_keypair(pk, sk);
  sv::Batch forged = analyzer_test::make_batch(dep, {{3, 1, 1.0F}});
  forged.id = real.id;
  const Snapshot before(*h.analyzer);
  an::BatchOutcome out = h.analyzer->receive_batch(analyzer_test::signed_bytes(forged, sk));
  EXPECT_EQ(out.result, an::BatchResult::unknown_signer) << out.error;
  // ... with no signer at all (zero fingerprint) ...
  std::vector<uint8_t> bytes = analyzer_test::signed_bytes(forged, sk);
  std::fill(bytes.begin() + 28, bytes.begin() + 44, 0);
  EXPECT_EQ(h.analyzer->receive_batch(bytes).result, an::BatchResult::unknown_signer);
  // ... and naming the pinned shuffler key without holding it.
  bytes = analyzer_test::signed_bytes(forged, sk);
  const sv::VerifyKey pinned = Deployment::shuffler_verify_key();
  std::copy(pinned.fp, pinned.fp + sizeof pinned.fp, bytes.begin() + 28);
  out = h.analyzer->receive_batch(bytes);
  EXPECT_EQ(out.result, an::BatchResult::bad_signature) << out.error;
  // A real batch with one flipped byte is no better.
  bytes = analyzer_test::signed_bytes(real);
  bytes[100] ^= 1;
  EXPECT_EQ(h.analyzer->receive_batch(bytes).result, an::BatchResult::bad_signature);
  bytes.pop_back();
  EXPECT_EQ(h.analyzer->receive_batch(bytes).result, an::BatchResult::malformed);
  EXPECT_TRUE(Snapshot(*h.analyzer) == before);
  EXPECT_EQ(h.analyzer->model(an::ModelKind::private_reports), nullptr);
  const std::string text = h.metrics.prometheus_text();
  EXPECT_NE(text.find("p2b_analyzer_batches_refused_total{reason=\"unknown_signer\"} 2"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("p2b_analyzer_batches_refused_total{reason=\"bad_signature\"} 2"),
            std::string::npos);
  EXPECT_NE(text.find("p2b_analyzer_batches_refused_total{reason=\"malformed\"} 1"),
            std::string::npos);

  // The shuffler's real batch with that id is applied, not a "duplicate".
  out = analyzer_test::apply(*h.analyzer, real);
  EXPECT_EQ(out.result, an::BatchResult::applied);
  EXPECT_EQ(out.applied, 2u);
}

TEST(AnalyzerBatchAuth, AnIdWithOtherContentsIsAConflict) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2);
  const sv::Batch first = analyzer_test::make_batch(dep, {{1, 0, 1.0F}});
  ASSERT_EQ(analyzer_test::apply(*h.analyzer, first).result, an::BatchResult::applied);
  const Snapshot before(*h.analyzer);
  sv::Batch other = analyzer_test::make_batch(dep, {{2, 1, 1.0F}});
  other.id = first.id;
  EXPECT_EQ(analyzer_test::apply(*h.analyzer, other).result, an::BatchResult::conflict);
  // Another partition is other contents too.
  sv::Batch moved = first;
  moved.partition = 7;
  EXPECT_EQ(analyzer_test::apply(*h.analyzer, moved).result, an::BatchResult::conflict);
  EXPECT_TRUE(Snapshot(*h.analyzer) == before);
  // Its inner was not recorded either: it can still arrive in a new batch.
  const an::BatchOutcome later =
      analyzer_test::apply(*h.analyzer, {sv::BatchId{1}, 0, other.records, {1, 0}});
  EXPECT_EQ(later.applied, 1u);
}

TEST(AnalyzerBatchAuth, TheAckNamesTheBatchAndIsSignedByTheModelKey) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2);
  const sv::Batch batch = analyzer_test::make_batch(dep, {{1, 0, 1.0F}});
  const std::vector<uint8_t> bytes = analyzer_test::signed_bytes(batch);
  const an::BatchOutcome out = h.analyzer->receive_batch(bytes);
  sv::BatchAck ack;
  ASSERT_EQ(sv::verify_ack(out.ack.data(), out.ack.size(), p2b_test::test_keys().verify_pk, &ack),
            sv::AckCheck::ok);
  EXPECT_EQ(ack.id, batch.id);
  EXPECT_EQ(ack.digest, sv::batch_digest(bytes.data(), bytes.size()));
  EXPECT_EQ(ack.model_version, 1u);
  EXPECT_EQ(ack.records, 1u);
  EXPECT_EQ(ack.applied, 1u);
  EXPECT_EQ(ack.accounted(), 1u);
  // The duplicate gets the very same ack; the shuffler key cannot make one.
  EXPECT_EQ(h.analyzer->receive_batch(bytes).ack, out.ack);
  EXPECT_EQ(sv::verify_ack(out.ack.data(), out.ack.size(), p2b_test::test_keys().shuffler_verify_pk,
                           &ack),
            sv::AckCheck::bad_signature);
  std::vector<uint8_t> bent = out.ack;
  bent[10] ^= 1;
  EXPECT_EQ(sv::verify_ack(bent.data(), bent.size(), p2b_test::test_keys().verify_pk, &ack),
            sv::AckCheck::bad_signature);
  bent.pop_back();
  EXPECT_EQ(sv::verify_ack(bent.data(), bent.size(), p2b_test::test_keys().verify_pk, &ack),
            sv::AckCheck::malformed);
  // A model bundle is no ack, though signed by the same key.
  const auto model = h.analyzer->model(an::ModelKind::private_reports);
  EXPECT_EQ(sv::verify_ack(model->bundle.data(), model->bundle.size(),
                           p2b_test::test_keys().verify_pk, &ack),
            sv::AckCheck::malformed);
}

TEST(AnalyzerBatchAuth, GarbageCannotFillAVictimsCrowd) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2, an::AggregationMode::centroid, false, 1.0, 0, 5);
  // The victim's lone report in crowd 3, padded by an attacker to l = 5 with
  // inner layers that do not open, and with valid reports of another code
  // claiming crowd 3.
  sv::Batch batch = analyzer_test::make_batch(dep, {{3, 1, 1.0F}});
  batch.thresholds.l = 5;
  for (int i = 0; i < 2; ++i) {
    sv::InnerCiphertext junk{};
    randombytes_buf(junk.data(), junk.size());
    std::copy(dep.analyzer.fp, dep.analyzer.fp + 16, junk.begin());
    batch.records.push_back({3, junk});
  }
  batch.records.push_back({3, dep.inner(5, 0, 1.0F)});
  batch.records.push_back({3, dep.inner(6, 0, 1.0F)});
  // Crowd 4 is honest and large enough.
  for (int i = 0; i < 5; ++i) batch.records.push_back(dep.record(4, 0, 0.5F));
  const an::BatchOutcome out = analyzer_test::apply(*h.analyzer, batch);
  EXPECT_EQ(out.applied, 5u);
  EXPECT_EQ(reason(out, an::RejectReason::decrypt_failed), 2u);
  EXPECT_EQ(reason(out, an::RejectReason::crowd_mismatch), 2u);
  EXPECT_EQ(reason(out, an::RejectReason::below_threshold), 1u);
  // Arm 1 (the victim's action) learned nothing.
  EXPECT_EQ(h.analyzer->statistics(an::ModelKind::private_reports).count(1), 0u);
  const std::string text = h.metrics.prometheus_text();
  for (const char* line : {"p2b_analyzer_records_rejected_total{reason=\"crowd_mismatch\"} 2",
                           "p2b_analyzer_records_rejected_total{reason=\"below_threshold\"} 1",
                           "p2b_analyzer_records_rejected_total{reason=\"decrypt_failed\"} 2"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
}

TEST(AnalyzerBatchAuth, ReplayedInnersAreDroppedWithinAndAcrossBatches) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  const std::string db = tmp.file("s.db");
  const sv::BatchRecord victim = dep.record(3, 1, 1.0F);
  {
    Harness h(dep, db, 2, an::AggregationMode::centroid, false, 1.0, 0, 3);
    // One victim report repeated to make up l = 3: one record, below l.
    const sv::Batch batch{sv::BatchId{1}, 0, {victim, victim, victim}, {3, 0}};
    const an::BatchOutcome out = analyzer_test::apply(*h.analyzer, batch);
    EXPECT_EQ(out.applied, 0u);
    EXPECT_EQ(reason(out, an::RejectReason::replayed), 2u);
    EXPECT_EQ(reason(out, an::RejectReason::below_threshold), 1u);
  }
  // Across batches, and across a restart: the digest is in the store.
  Harness h(dep, db, 2, an::AggregationMode::centroid, false, 1.0, 0, 1);
  const sv::Batch again{sv::BatchId{2}, 0, {victim, dep.record(3, 0, 0.0F)}, {1, 0}};
  const an::BatchOutcome out = analyzer_test::apply(*h.analyzer, again);
  EXPECT_EQ(out.applied, 1u);
  EXPECT_EQ(reason(out, an::RejectReason::replayed), 1u);
  EXPECT_EQ(h.analyzer->statistics(an::ModelKind::private_reports).count(1), 0u);
  EXPECT_NE(h.metrics.prometheus_text().find(
                "p2b_analyzer_records_rejected_total{reason=\"replayed\"} 1"),
            std::string::npos);
}

TEST(AnalyzerBatchAuth, TheThresholdCountsValidReportsPerCrowd) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2, an::AggregationMode::centroid, false, 1.0, 0, 3);
  sv::Batch batch = analyzer_test::make_batch(
      dep, {{1, 0, 1.0F}, {1, 1, 1.0F}, {1, 0, 0.0F}, {2, 0, 1.0F}, {2, 1, 1.0F}});
  batch.thresholds.l = 3;
  const an::BatchOutcome out = analyzer_test::apply(*h.analyzer, batch);
  EXPECT_EQ(out.applied, 3u);
  EXPECT_EQ(reason(out, an::RejectReason::below_threshold), 2u);
  EXPECT_EQ(h.analyzer->statistics(an::ModelKind::private_reports).total_count(), 3u);
}

// A seeded source, so that the noisy-threshold trials below repeat.
class SeededRandomness final : public p2b::common::Randomness {
 public:
  explicit SeededRandomness(uint64_t seed) : gen_(seed) {}
  uint32_t uniform(uint32_t n) override {
    return std::uniform_int_distribution<uint32_t>(0, n - 1)(gen_);
  }
  double unit_open0() override { return 1.0 - std::uniform_real_distribution<double>(0, 1)(gen_); }

 private:
  std::mt19937_64 gen_;
};

// `valid` reports of code 5, plus `garbage` records that failed to open.
std::vector<an::OpenedRecord> crowd_of(std::size_t valid, std::size_t garbage) {
  std::vector<an::OpenedRecord> records(valid + garbage);
  for (std::size_t i = 0; i < records.size(); ++i) {
    records[i].digest[0] = static_cast<uint8_t>(i);
    records[i].digest[1] = static_cast<uint8_t>(i >> 8);
    records[i].valid = i < valid;
    records[i].reason = an::RejectReason::decrypt_failed;
    records[i].report = an::ValidReport{5, 0, 1.0};
  }
  return records;
}

// How often a crowd of `valid` reports (and `garbage`) passes the analyzer.
double release_rate(std::size_t valid, std::size_t garbage, double sigma, int trials) {
  SeededRandomness rng(7);
  const auto records = crowd_of(valid, garbage);
  int released = 0;
  for (int i = 0; i < trials; ++i) {
    const an::OpenedBatch out = an::screen_records(
        records, [](const sv::InnerDigest&) { return false; },
        p2b::common::ThresholdPolicy{10, sigma}, rng);
    released += out.valid.empty() ? 0 : 1;
  }
  return static_cast<double>(released) / trials;
}

// Behind a noisy shuffler, a plain analyzer threshold would release a crowd of
// exactly l with certainty and one of l - 1 never: the edge that tells an
// attacker holding l - 1 sybil reports whether the victim reported. With the
// same noise at the analyzer, one report moves the release probability by
// at most 1 / (sigma sqrt(2 pi)).
TEST(AnalyzerBatchAuth, TheNoisyThresholdHasNoSharpEdgeAndCountsOnlyValidReports) {
  constexpr int kTrials = 4000;
  EXPECT_EQ(release_rate(10, 0, 0, 50), 1.0);
  EXPECT_EQ(release_rate(9, 0, 0, 50), 0.0);
  EXPECT_EQ(release_rate(9, 30, 0, 50), 0.0) << "garbage must not count";
  const double at_l = release_rate(10, 0, 4.0, kTrials);
  const double below_l = release_rate(9, 0, 4.0, kTrials);
  // P(round(Z) >= 0) and P(round(Z) >= 1) for Z ~ N(0, 16): 0.550 and 0.451.
  EXPECT_NEAR(at_l, 0.550, 0.04);
  EXPECT_NEAR(below_l, 0.451, 0.04);
  EXPECT_LT(at_l - below_l, 1.0 / (4.0 * std::sqrt(2.0 * M_PI)) + 0.04);
  EXPECT_NEAR(release_rate(9, 30, 4.0, kTrials), below_l, 1e-12) << "garbage must not count";
}

TEST(AnalyzerBatchAuth, ThePartitionIsLogged) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2);
  sv::Batch batch = analyzer_test::make_batch(dep, {{1, 0, 1.0F}});
  batch.partition = 42;
  ASSERT_EQ(analyzer_test::apply(*h.analyzer, batch).result, an::BatchResult::applied);
  EXPECT_NE(h.log_text.str().find("\"partition\":42"), std::string::npos) << h.log_text.str();
}

}  // namespace
