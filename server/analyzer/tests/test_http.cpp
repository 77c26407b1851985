// The HTTP contract, in-process on a free port: framing errors, idempotent
// batches, ETag/304, 404 before the first model, and the raw baseline (off
// by default, strictly validated when on).
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <thread>

#include "analyzer_test_support.hpp"
#include "http_api.hpp"
#include "wire/batch_ack.hpp"

namespace {

using analyzer_test::Deployment;
using analyzer_test::Harness;
using analyzer_test::Served;
using analyzer_test::TempDir;
namespace an = p2b::analyzer;

std::string body_of(const std::vector<uint8_t>& v) {
  return std::string(v.begin(), v.end());
}

httplib::Result post(const Served& s, const char* path, const std::vector<uint8_t>& body) {
  return s.client().Post(path, body_of(body), "application/octet-stream");
}

// The ack the analyzer must send for a batch of 3 records, 2 applied and 1
// quarantined: signed with its model key.
std::string ack_hex(const p2b::server::BatchId& id, const p2b::server::BatchDigest& digest,
                    uint64_t version) {
  p2b::server::BatchAck counts{id, digest, version};
  counts.records = 3;
  counts.applied = 2;
  counts.quarantined = 1;
  const std::vector<uint8_t> ack =
      p2b::server::encode_signed_ack(counts, p2b_test::test_keys().sign_sk);
  return p2b::server::hex_of(ack.data(), ack.size());
}

TEST(AnalyzerHttp, ModelIs404BeforeTheFirstBatch) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2);
  const Served s(&h);
  const auto res = s.client().Get("/v1/model");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  EXPECT_EQ(res->body, R"({"error":"no_model","detail":"no model yet"})");
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
}

TEST(AnalyzerHttp, BatchesApplyOnceAndTheModelHasAnETag) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2);
  const Served s(&h);
  p2b::server::Batch batch = analyzer_test::make_batch(dep, {{1, 0, 1.0F}, {2, 1, 0.0F}});
  batch.records.push_back(dep.record(9, 0, 1.0F));  // code out of range
  const std::vector<uint8_t> body = analyzer_test::signed_bytes(batch);
  const p2b::server::BatchDigest digest = p2b::server::batch_digest(body.data(), body.size());
  const std::string ack = ack_hex(batch.id, digest, 1);

  auto res = post(s, "/v1/batches", body);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, "{\"applied\":2,\"quarantined\":1,\"refused\":0,\"version\":1,\"ack\":\"" +
                           ack + "\"}");
  // The same batch again: a duplicate, acknowledged with the same ack.
  res = post(s, "/v1/batches", body);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, "{\"applied\":0,\"duplicate\":true,\"version\":1,\"ack\":\"" + ack + "\"}");

  res = s.client().Get("/v1/model");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("ETag"), "\"1\"");
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/octet-stream");
  EXPECT_EQ(res->body, body_of(h.analyzer->model(an::ModelKind::private_reports)->bundle));

  res = s.client().Get("/v1/model", {{"If-None-Match", "\"1\""}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 304);
  EXPECT_TRUE(res->body.empty());
  res = s.client().Get("/v1/model", {{"If-None-Match", "\"0\""}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);

  post(s, "/v1/batches",
       analyzer_test::signed_bytes(analyzer_test::make_batch(dep, {{1, 1, 1.0F}})));
  res = s.client().Get("/v1/model", {{"If-None-Match", "\"1\""}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("ETag"), "\"2\"");
}

TEST(AnalyzerHttp, BadFramingIs400) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2);
  const Served s(&h);
  std::vector<uint8_t> body =
      analyzer_test::signed_bytes(analyzer_test::make_batch(dep, {{1, 0, 1.0F}}));
  body.pop_back();
  auto res = post(s, "/v1/batches", body);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_EQ(res->body.rfind("{\"error\":\"bad_batch\",\"detail\":\"", 0), 0u) << res->body;
  res = post(s, "/v1/batches", {'n', 'o', 'p', 'e'});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_EQ(h.analyzer->model(an::ModelKind::private_reports), nullptr);
}

TEST(AnalyzerHttp, HealthMetricsAndUnknownPaths) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2);
  const Served s(&h);
  auto res = s.client().Get("/healthz");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, "alive");
  res = s.client().Get("/metrics");
  ASSERT_TRUE(res);
  for (const char* name :
       {"p2b_analyzer_batches_applied_total 0", "p2b_analyzer_batches_duplicate_total 0",
        "p2b_analyzer_records_applied_total 0",
        "p2b_analyzer_records_rejected_total{reason=\"malformed\"} 0",
        "p2b_analyzer_model_version 0"}) {
    EXPECT_NE(res->body.find(name), std::string::npos) << name;
  }
  res = s.client().Get("/v1/nothing");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  EXPECT_EQ(res->body.rfind("{\"error\":\"not_found\",\"detail\":\"", 0), 0u) << res->body;
  res = s.client().Get("/v1/model?kind=other");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
}

TEST(AnalyzerHttp, RawBaselineIsOffByDefault) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2);
  const Served s(&h);
  auto res = post(s, "/v1/raw", an::encode_raw(4, {1, 0, 0, 0}, {0}, {1.0F}));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  res = s.client().Get("/v1/model?kind=raw");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  EXPECT_EQ(h.analyzer->model(an::ModelKind::raw_baseline), nullptr);
}

TEST(AnalyzerHttp, RawBaselineValidatesTheWholeRequest) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2, an::AggregationMode::centroid, true);
  const Served s(&h);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<std::vector<uint8_t>> bad = {
      an::encode_raw(4, {1, 0, 0, 0, 1, -1, 0, 0}, {0, 0}, {1.0F, 1.0F}),  // negative
      an::encode_raw(4, {1, 0, 0, 0, nan, 0, 0, 0}, {0, 0}, {1.0F, 1.0F}),
      an::encode_raw(4, {1, 0, 0, inf}, {0}, {1.0F}),
      an::encode_raw(4, {1, 0, 0, 0}, {2}, {1.0F}),   // action == K
      an::encode_raw(4, {1, 0, 0, 0}, {0}, {1.5F}),   // reward > 1
      an::encode_raw(4, {1, 0, 0, 0}, {0}, {-0.5F}),  // reward < 0
      an::encode_raw(4, {1, 0, 0, 0}, {0}, {nan}),
      an::encode_raw(3, {1, 0, 0}, {0}, {1.0F}),  // another dim
      {'P', '2', 'B', 'R'},
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    const auto res = post(s, "/v1/raw", bad[i]);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 400) << "case " << i;
  }
  EXPECT_EQ(h.analyzer->model(an::ModelKind::raw_baseline), nullptr);

  // Contexts are normalised: (2, 2, 0, 0) counts as (0.5, 0.5, 0, 0), and
  // all-zero as uniform.
  auto res = post(s, "/v1/raw", an::encode_raw(4, {2, 2, 0, 0, 0, 0, 0, 0}, {1, 1}, {1.0F, 0.0F}));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, "{\"applied\":2,\"version\":1}");
  const an::Statistics raw = h.analyzer->statistics(an::ModelKind::raw_baseline);
  EXPECT_DOUBLE_EQ(raw.reward_sum(1)[0], 0.5);
  EXPECT_DOUBLE_EQ(raw.gram(1)[0], 0.25 + 0.0625);
  EXPECT_DOUBLE_EQ(raw.gram(1)[3 * 4 + 3], 0.0625);
  EXPECT_EQ(raw.count(0), 0u);

  res = s.client().Get("/v1/model?kind=raw");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("ETag"), "\"1\"");
  res = s.client().Get("/v1/model?kind=raw", {{"If-None-Match", "\"1\""}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 304);
  // The private model is separate and still absent.
  res = s.client().Get("/v1/model");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);

  // The raw model is marked as such: a production device refuses it, and
  // only a device set up for experiments applies it.
  auto device = p2b_test::make_agent(p2b_test::base_config(4, 2, 8, 15));
  const auto model = h.analyzer->model(an::ModelKind::raw_baseline);
  EXPECT_EQ(p2b_agent_apply_model(device.agent, model->bundle.data(), model->bundle.size()),
            P2B_ERR_MODEL_KIND);
  p2b_config experiment = p2b_test::base_config(4, 2, 8, 15);
  experiment.accept_baseline_models = 1;
  auto lab_device = p2b_test::make_agent(experiment);
  EXPECT_EQ(p2b_agent_apply_model(lab_device.agent, model->bundle.data(), model->bundle.size()),
            P2B_OK);
}

// Past the central-DP horizon nothing more can be released within the stated
// epsilon: a distinct 503 that the shuffler keeps retrying, and the last
// model stays served.
TEST(AnalyzerHttp, PastTheCentralDpHorizonABatchGets503AndTheModelStays) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2, an::AggregationMode::centroid, false, 1.0, 0, 1,
            an::CentralDpConfig{1.0, 1e-6, 1});
  const Served s(&h);
  auto res = post(s, "/v1/batches",
                  analyzer_test::signed_bytes(analyzer_test::make_batch(dep, {{1, 1, 1.0F}})));
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  res = post(s, "/v1/batches",
             analyzer_test::signed_bytes(analyzer_test::make_batch(dep, {{2, 0, 1.0F}})));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 503);
  EXPECT_EQ(nlohmann::json::parse(res->body)["error"], "privacy_budget_exhausted");
  const auto model = s.client().Get("/v1/model");
  ASSERT_TRUE(model);
  EXPECT_EQ(model->status, 200);
  EXPECT_EQ(model->get_header_value("ETag"), "\"1\"");
}

}  // namespace
