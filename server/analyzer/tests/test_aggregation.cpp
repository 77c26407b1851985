// The statistics a batch produces equal A = lambda I + sum x x^T and
// b = sum r x computed directly, in both aggregation modes, and records that
// must not count are skipped with their reason.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "analyzer_test_support.hpp"

namespace {

using analyzer_test::Deployment;
using analyzer_test::Direct;
using analyzer_test::Harness;
using analyzer_test::TempDir;
using analyzer_test::Tuple;
namespace an = p2b::analyzer;

void expect_equal_models(const an::Statistics& stats, double lambda, const Direct& want) {
  std::vector<double> a, b;
  stats.model_arrays(lambda, &a, &b);
  ASSERT_EQ(a.size(), want.a.size());
  ASSERT_EQ(b.size(), want.b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], want.a[i], 1e-9 * (1 + std::fabs(a[i])));
  for (size_t i = 0; i < b.size(); ++i) EXPECT_NEAR(b[i], want.b[i], 1e-9 * (1 + std::fabs(b[i])));
}

TEST(AnalyzerAggregation, DefaultModeDecodesCodesToCentroids) {
  const Deployment dep(5, 16);
  const TempDir tmp;
  const double lambda = 0.5;
  Harness h(dep, tmp.file("s.db"), 3, an::AggregationMode::centroid, false, lambda);
  std::mt19937_64 rng(1);
  const std::vector<Tuple> tuples = analyzer_test::random_tuples(rng, 200, 16, 3);
  const an::BatchOutcome out =
      analyzer_test::apply(*h.analyzer, analyzer_test::make_batch(dep, tuples));
  EXPECT_EQ(out.applied, 200u);
  EXPECT_EQ(out.rejected, 0u);
  EXPECT_EQ(out.version, 1u);

  Direct want(5, 3, lambda);
  for (const Tuple& t : tuples) want.add(t.action, analyzer_test::centroid(dep, t.code), t.reward);
  const an::Statistics stats = h.analyzer->statistics(an::ModelKind::private_reports);
  EXPECT_EQ(stats.dim(), 5u);
  EXPECT_EQ(stats.total_count(), 200u);
  expect_equal_models(stats, lambda, want);
}

TEST(AnalyzerAggregation, PaperModeUsesTheCodeAsOneScalarFeature) {
  const Deployment dep(5, 16);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 4, an::AggregationMode::paper);
  std::mt19937_64 rng(2);
  std::vector<Tuple> tuples = analyzer_test::random_tuples(rng, 150, 16, 4);
  tuples.push_back({0, 2, 1.0F});  // code 0 is the zero vector: counted, adds nothing
  analyzer_test::apply(*h.analyzer, analyzer_test::make_batch(dep, tuples));

  Direct want(1, 4, 1.0);
  for (const Tuple& t : tuples) want.add(t.action, {static_cast<double>(t.code)}, t.reward);
  const an::Statistics stats = h.analyzer->statistics(an::ModelKind::private_reports);
  EXPECT_EQ(stats.dim(), 1u);
  EXPECT_EQ(h.analyzer->dim(), 1u);
  EXPECT_EQ(stats.total_count(), 151u);
  expect_equal_models(stats, 1.0, want);
}

TEST(AnalyzerAggregation, BatchesAccumulateAcrossVersions) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2);
  std::mt19937_64 rng(3);
  Direct want(4, 2, 1.0);
  for (uint64_t v = 1; v <= 3; ++v) {
    const std::vector<Tuple> tuples = analyzer_test::random_tuples(rng, 40, 8, 2);
    for (const Tuple& t : tuples)
      want.add(t.action, analyzer_test::centroid(dep, t.code), t.reward);
    EXPECT_EQ(analyzer_test::apply(*h.analyzer, analyzer_test::make_batch(dep, tuples)).version, v);
  }
  expect_equal_models(h.analyzer->statistics(an::ModelKind::private_reports), 1.0, want);
}

TEST(AnalyzerAggregation, ThePrivateModelIsWithheldUntilMinReportsBackIt) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2, an::AggregationMode::centroid, true, 1.0, 50);
  std::mt19937_64 rng(5);
  EXPECT_EQ(analyzer_test::apply(*h.analyzer, analyzer_test::make_batch(
                                                  dep, analyzer_test::random_tuples(rng, 30, 8, 2)))
                .version,
            1u);
  // Signed and stored, but 30 < 50 reports: not served.
  EXPECT_EQ(h.analyzer->model(an::ModelKind::private_reports), nullptr);
  EXPECT_EQ(h.analyzer->statistics(an::ModelKind::private_reports).total_count(), 30u);
  analyzer_test::apply(*h.analyzer,
                       analyzer_test::make_batch(dep, analyzer_test::random_tuples(rng, 20, 8, 2)));
  const auto model = h.analyzer->model(an::ModelKind::private_reports);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->version, 2u);
}

TEST(AnalyzerAggregation, BadRecordsAreSkippedAndCountedByReason) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 3);
  p2b::server::Batch batch = analyzer_test::make_batch(dep, {{1, 0, 1.0F}, {2, 1, 0.0F}});
  batch.records.push_back(dep.record(8, 0, 1.0F));  // code == k
  batch.records.push_back(dep.record(1, 3, 1.0F));  // action == K
  // Sealed to another analyzer key: its fingerprint names none of ours.
  uint8_t pk[32], sk[32];
  crypto_box_keypair(pk, sk);
  p2b::server::BoxKey stranger{};
  p2b::server::make_box_key(pk, sk, &stranger);
  batch.records.push_back(dep.record(1, 0, 1.0F, &stranger));
  // Tampered ciphertext under our fingerprint.
  p2b::server::InnerCiphertext bad = dep.inner(1, 0, 1.0F);
  bad[40] ^= 1;
  batch.records.push_back({1, bad});

  const an::BatchOutcome out = analyzer_test::apply(*h.analyzer, batch);
  EXPECT_EQ(out.applied, 2u);
  EXPECT_EQ(out.rejected, 4u);
  const auto n = [&](an::RejectReason r) { return out.by_reason[static_cast<int>(r)]; };
  EXPECT_EQ(n(an::RejectReason::code_out_of_range), 1u);
  EXPECT_EQ(n(an::RejectReason::action_out_of_range), 1u);
  EXPECT_EQ(n(an::RejectReason::unknown_key), 1u);
  EXPECT_EQ(n(an::RejectReason::decrypt_failed), 1u);
  EXPECT_EQ(h.analyzer->statistics(an::ModelKind::private_reports).total_count(), 2u);
  const std::string text = h.metrics.prometheus_text();
  EXPECT_NE(text.find("p2b_analyzer_records_rejected_total{reason=\"unknown_key\"} 1"),
            std::string::npos);
  EXPECT_NE(text.find("p2b_analyzer_records_applied_total 2"), std::string::npos);
}

TEST(AnalyzerAggregation, RotatedKeysBothOpen) {
  const Deployment dep(4, 8);
  uint8_t pk[32], sk[32];
  crypto_box_keypair(pk, sk);
  p2b::server::BoxKey newer{};
  p2b::server::make_box_key(pk, sk, &newer);
  const an::KeyRing ring =
      an::KeyRing::from_keys({dep.analyzer, newer}, p2b_test::test_keys().sign_sk);
  p2b::server::Batch batch;
  batch.records = {dep.record(1, 0, 1.0F), dep.record(2, 1, 1.0F, &newer)};
  const std::vector<an::OpenedRecord> opened = an::open_records(batch, ring, 8, 2);
  ASSERT_EQ(opened.size(), 2u);
  EXPECT_TRUE(opened[0].valid);
  EXPECT_TRUE(opened[1].valid);
}

TEST(AnalyzerAggregation, StatisticsMergeByAddition) {
  std::mt19937_64 rng(4);
  an::Statistics all(3, 2), first(3, 2), second(3, 2);
  for (int i = 0; i < 50; ++i) {
    const double x[3] = {static_cast<double>(rng() % 5), 0.25, static_cast<double>(rng() % 3)};
    const uint32_t arm = static_cast<uint32_t>(rng() % 2);
    all.add(arm, x, 1.0);
    (i % 2 == 0 ? first : second).add(arm, x, 1.0);
  }
  for (uint32_t arm = 0; arm < 2; ++arm) {
    EXPECT_EQ(all.count(arm), first.count(arm) + second.count(arm));
    for (int i = 0; i < 9; ++i) {
      EXPECT_DOUBLE_EQ(all.gram(arm)[i], first.gram(arm)[i] + second.gram(arm)[i]);
    }
    for (int i = 0; i < 3; ++i) {
      EXPECT_DOUBLE_EQ(all.reward_sum(arm)[i],
                       first.reward_sum(arm)[i] + second.reward_sum(arm)[i]);
    }
  }
}

}  // namespace
