// The analyzer as devices and the shuffler see it: a batch id is applied
// once however often it is sent, and the model it serves verifies and
// applies on a real agent with the deployment's verify key and codebook.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "analyzer_test_support.hpp"
#include "p2b.h"

namespace {

using analyzer_test::Deployment;
using analyzer_test::Direct;
using analyzer_test::Harness;
using analyzer_test::TempDir;
using analyzer_test::Tuple;
namespace an = p2b::analyzer;

TEST(AnalyzerService, ABatchIdIsAppliedOnce) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2);
  std::mt19937_64 rng(8);
  const p2b::server::Batch batch =
      analyzer_test::make_batch(dep, analyzer_test::random_tuples(rng, 30, 8, 2));
  const an::BatchOutcome first = analyzer_test::apply(*h.analyzer, batch);
  EXPECT_EQ(first.result, an::BatchResult::applied);
  EXPECT_EQ(first.version, 1u);
  const an::Statistics after = h.analyzer->statistics(an::ModelKind::private_reports);
  const an::BatchOutcome again = analyzer_test::apply(*h.analyzer, batch);
  EXPECT_EQ(again.result, an::BatchResult::duplicate);
  EXPECT_EQ(again.applied, 0u);
  EXPECT_EQ(h.analyzer->model(an::ModelKind::private_reports)->version, 1u);
  EXPECT_EQ(h.analyzer->statistics(an::ModelKind::private_reports), after);
  const std::string text = h.metrics.prometheus_text();
  EXPECT_NE(text.find("p2b_analyzer_batches_applied_total 1"), std::string::npos);
  EXPECT_NE(text.find("p2b_analyzer_batches_duplicate_total 1"), std::string::npos);
  EXPECT_NE(text.find("p2b_analyzer_model_version 1"), std::string::npos);
}

TEST(AnalyzerService, EveryNewBatchBumpsTheVersionEvenWhenEmpty) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2);
  EXPECT_EQ(h.analyzer->model(an::ModelKind::private_reports), nullptr);
  EXPECT_EQ(analyzer_test::apply(*h.analyzer, analyzer_test::make_batch(dep, {})).version, 1u);
  EXPECT_EQ(
      analyzer_test::apply(*h.analyzer, analyzer_test::make_batch(dep, {{1, 1, 1.0F}})).version,
      2u);
}

TEST(AnalyzerService, LogsCarryNoKeysAndNoTuples) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2);
  const p2b::server::Batch batch = analyzer_test::make_batch(dep, {{5, 1, 0.75F}});
  analyzer_test::apply(*h.analyzer, batch);
  const std::string log = h.log_text.str();
  EXPECT_NE(log.find("\"event\":\"batch_applied\""), std::string::npos);
  EXPECT_NE(log.find(p2b::server::batch_id_hex(batch.id)), std::string::npos);
  EXPECT_EQ(log.find("0.75"), std::string::npos);
  EXPECT_EQ(log.find("\"code\""), std::string::npos);
  // No secret key bytes, in hex, anywhere.
  char sk_hex[2 * 32 + 1];
  sodium_bin2hex(sk_hex, sizeof sk_hex, dep.analyzer.sk, 32);
  EXPECT_EQ(log.find(std::string(sk_hex, 16)), std::string::npos);
}

// The served bundle, applied through the C API exactly as a device does.
TEST(AnalyzerService, TheServedModelAppliesOnADevice) {
  const uint32_t d = 5, k = 16, actions = 3;
  const Deployment dep(d, k);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), actions);
  std::mt19937_64 rng(9);
  const std::vector<Tuple> tuples = analyzer_test::random_tuples(rng, 300, k, actions);
  analyzer_test::apply(*h.analyzer, analyzer_test::make_batch(dep, tuples));
  const auto model = h.analyzer->model(an::ModelKind::private_reports);
  ASSERT_TRUE(model);

  auto device = p2b_test::make_agent(p2b_test::base_config(d, actions, k, 11));
  ASSERT_EQ(p2b_agent_apply_model(device.agent, model->bundle.data(), model->bundle.size()),
            P2B_OK);
  uint64_t version = 0;
  ASSERT_EQ(p2b_agent_model_version(device.agent, &version), P2B_OK);
  EXPECT_EQ(version, 1u);

  // The device now holds A = I + sum c c^T and b = sum r c.
  Direct want(d, actions, 1.0);
  for (const Tuple& t : tuples) want.add(t.action, analyzer_test::centroid(dep, t.code), t.reward);
  std::vector<double> a(want.a.size()), b(want.b.size());
  ASSERT_EQ(p2b_agent_export(device.agent, a.data(), b.data(), actions, d), P2B_OK);
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(a[i], want.a[i], 1e-3 * (1 + std::fabs(want.a[i])));
  for (size_t i = 0; i < b.size(); ++i)
    EXPECT_NEAR(b[i], want.b[i], 1e-3 * (1 + std::fabs(want.b[i])));

  // The same bundle again is a rollback; the next version applies.
  EXPECT_EQ(p2b_agent_apply_model(device.agent, model->bundle.data(), model->bundle.size()),
            P2B_ERR_MODEL_ROLLBACK);
  analyzer_test::apply(*h.analyzer, analyzer_test::make_batch(dep, {{3, 0, 1.0F}}));
  const auto next = h.analyzer->model(an::ModelKind::private_reports);
  EXPECT_EQ(p2b_agent_apply_model(device.agent, next->bundle.data(), next->bundle.size()), P2B_OK);
}

TEST(AnalyzerService, AnotherSigningKeyIsRefusedByTheDevice) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  uint8_t pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
  crypto_sign_keypair(pk, sk);
  std::ostringstream sink;
  an::Logger log(&sink);
  an::Metrics metrics;
  an::SqliteModelStore store(tmp.file("s.db"), analyzer_test::test_mac_keys());
  an::AnalyzerSettings s = analyzer_test::settings(2);
  an::Analyzer analyzer(s, dep.codebook, an::KeyRing::from_keys({dep.analyzer}, sk), &store,
                        &metrics, &log);
  analyzer_test::apply(analyzer, analyzer_test::make_batch(dep, {{1, 1, 1.0F}}));
  const auto model = analyzer.model(an::ModelKind::private_reports);
  auto device = p2b_test::make_agent(p2b_test::base_config(4, 2, 8, 12));
  const p2b_status st =
      p2b_agent_apply_model(device.agent, model->bundle.data(), model->bundle.size());
  EXPECT_TRUE(st == P2B_ERR_BAD_SIGNATURE || st == P2B_ERR_MALFORMED_INPUT) << p2b_status_str(st);
}

TEST(AnalyzerService, PaperModelsFitOnlyOneDimensionalDevices) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2, an::AggregationMode::paper);
  analyzer_test::apply(*h.analyzer, analyzer_test::make_batch(dep, {{3, 1, 1.0F}, {5, 0, 0.0F}}));
  const auto model = h.analyzer->model(an::ModelKind::private_reports);
  auto device = p2b_test::make_agent(p2b_test::base_config(4, 2, 8, 13));
  EXPECT_EQ(p2b_agent_apply_model(device.agent, model->bundle.data(), model->bundle.size()),
            P2B_ERR_MODEL_SHAPE_MISMATCH);
}

TEST(AnalyzerService, PaperModelsApplyOnOneDimensionalDevices) {
  // Paper mode's deployment: agents with dim = 1 contexts (the code) and a
  // one-dimensional codebook, which the analyzer is given too.
  const Deployment dep(1, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2, an::AggregationMode::paper);
  analyzer_test::apply(*h.analyzer, analyzer_test::make_batch(dep, {{3, 1, 1.0F}, {5, 0, 0.0F}}));
  const auto model = h.analyzer->model(an::ModelKind::private_reports);
  auto device = p2b_test::make_agent(p2b_test::base_config(1, 2, 8, 14));
  ASSERT_EQ(p2b_agent_apply_model(device.agent, model->bundle.data(), model->bundle.size()),
            P2B_OK);
  std::vector<double> a(2), b(2);
  ASSERT_EQ(p2b_agent_export(device.agent, a.data(), b.data(), 2, 1), P2B_OK);
  EXPECT_NEAR(a[0], 1.0 + 25.0, 1e-3);  // arm 0: code 5
  EXPECT_NEAR(b[0], 0.0, 1e-6);
  EXPECT_NEAR(a[1], 1.0 + 9.0, 1e-3);  // arm 1: code 3, reward 1
  EXPECT_NEAR(b[1], 3.0, 1e-4);
}

// --model-ttl: both models expire `ttl` seconds after they were signed, for
// devices that are given the time; the raw one is marked as a raw baseline.
TEST(AnalyzerService, ModelTtlSetsTheNotAfterTimeOfBothModels) {
  const Deployment dep(5, 16);
  const TempDir tmp;
  std::ostringstream sink;
  an::Logger log(&sink);
  an::Metrics metrics;
  an::AnalyzerSettings s = analyzer_test::settings(3);
  s.raw_enabled = true;
  s.model_ttl = 3600;
  s.clock = [] { return uint64_t{1795000000}; };
  an::SqliteModelStore store(tmp.file("ttl.db"), analyzer_test::test_mac_keys());
  an::Analyzer analyzer(s, dep.codebook, dep.key_ring(), &store, &metrics, &log);
  analyzer_test::apply(analyzer, analyzer_test::make_batch(dep, {{1, 1, 1.0F}, {2, 0, 0.0F}}));
  an::RawBatch raw;
  std::string err;
  const std::vector<uint8_t> body = an::encode_raw(5, {1, 2, 3, 4, 5}, {2}, {1.0F});
  ASSERT_TRUE(an::decode_raw(body.data(), body.size(), 5, 3, &raw, &err)) << err;
  analyzer.apply_raw(raw);

  p2b_config cfg = p2b_test::base_config(5, 3, 16, 21);
  cfg.accept_baseline_models = 1;
  for (const an::ModelKind kind : {an::ModelKind::private_reports, an::ModelKind::raw_baseline}) {
    const auto model = analyzer.model(kind);
    ASSERT_TRUE(model);
    auto late = p2b_test::make_agent(cfg);
    EXPECT_EQ(p2b_agent_apply_model_at(late.agent, model->bundle.data(), model->bundle.size(),
                                       1795003601),
              P2B_ERR_MODEL_EXPIRED);
    EXPECT_EQ(p2b_agent_apply_model_at(late.agent, model->bundle.data(), model->bundle.size(),
                                       1795003600),
              P2B_OK);
    uint64_t version = 0;
    const uint32_t device_kind =
        kind == an::ModelKind::raw_baseline ? P2B_MODEL_RAW_BASELINE : P2B_MODEL_PRIVATE;
    ASSERT_EQ(p2b_agent_model_version_of(late.agent, device_kind, &version), P2B_OK);
    EXPECT_EQ(version, 1U);
  }
}

}  // namespace
