// --max-batch-records: a batch of more records is refused with 413
// batch_too_large before it is verified or decrypted, from its header or
// (past --max-body) from its Content-Length alone, and nothing is applied;
// a batch at the limit is applied.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include <string>
#include <thread>

#include "analyzer_test_support.hpp"
#include "http_api.hpp"
#include "options.hpp"

namespace {

using analyzer_test::Deployment;
using analyzer_test::Harness;
using analyzer_test::Served;
using analyzer_test::TempDir;
namespace an = p2b::analyzer;

constexpr std::size_t kLimit = 4;

std::vector<uint8_t> batch_of(const Deployment& dep, std::size_t n) {
  std::vector<analyzer_test::Tuple> tuples;
  for (std::size_t i = 0; i < n; ++i) tuples.push_back({1, 0, 1.0F});
  return analyzer_test::signed_bytes(analyzer_test::make_batch(dep, tuples));
}

std::string error_of(const httplib::Result& res) {
  const nlohmann::json j = nlohmann::json::parse(res->body, nullptr, false);
  return j.is_object() && j.contains("error") ? j["error"].get<std::string>() : "";
}

TEST(AnalyzerBatchLimit, ALargerBatchIsRefusedBeforeDecryptionAndNothingIsApplied) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2);
  // A --max-body that would let the larger batch through: the header's
  // count alone refuses it.
  const Served s(&h, an::batch_request_bytes(kLimit * 4), kLimit);
  auto res = s.post(batch_of(dep, kLimit + 1));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  EXPECT_EQ(error_of(res), "batch_too_large");
  EXPECT_NE(res->body.find("--max-batch-records"), std::string::npos);
  EXPECT_EQ(h.analyzer->model(an::ModelKind::private_reports), nullptr);
  const std::string text = h.metrics.prometheus_text();
  EXPECT_NE(text.find("p2b_analyzer_batches_refused_total{reason=\"too_large\"} 1"),
            std::string::npos);
  EXPECT_NE(text.find("p2b_analyzer_records_applied_total 0"), std::string::npos);
  // Nothing was opened: no record was counted as rejected either.
  EXPECT_EQ(h.log_text.str().find("batch_applied"), std::string::npos);

  res = s.post(batch_of(dep, kLimit));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  ASSERT_NE(h.analyzer->model(an::ModelKind::private_reports), nullptr);
}

TEST(AnalyzerBatchLimit, ABodyPastMaxBodyIsRefusedAsTooLargeUnread) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2);
  const Served s(&h, an::batch_request_bytes(kLimit), kLimit);
  // The header claims kLimit records, the body is longer: only its length
  // can refuse it, and does so as batch_too_large for the shuffler.
  std::vector<uint8_t> body = batch_of(dep, kLimit);
  body.resize(body.size() + 4096, 0);
  const auto res = s.post(body);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  EXPECT_EQ(error_of(res), "batch_too_large");
  EXPECT_EQ(h.analyzer->model(an::ModelKind::private_reports), nullptr);
}

TEST(AnalyzerBatchLimit, TheOptionSetsTheLimitAndTheBodyBoundFollows) {
  an::Options o;
  std::string message;
  const char* base[] = {"p2b-analyzer", "--keys",     "k",      "--shuffler-key",
                        "s.pk",         "--codebook", "c.p2bc", "--store",
                        "db",           "--actions",  "4",      "--central-epsilon",
                        "off"};
  std::vector<const char*> args(std::begin(base), std::end(base));
  ASSERT_EQ(an::parse_options(static_cast<int>(args.size()), args.data(), &o, &message),
            an::ParseOutcome::ok)
      << message;
  EXPECT_EQ(o.max_batch_records, an::kDefaultMaxBatchRecords);
  EXPECT_EQ(o.max_body, an::batch_request_bytes(an::kDefaultMaxBatchRecords));
  EXPECT_GE(an::kDefaultMaxBatchRecords, 1000U);  // the shuffler's default --batch-size fits

  args.push_back("--max-batch-records");
  args.push_back("100");
  ASSERT_EQ(an::parse_options(static_cast<int>(args.size()), args.data(), &o, &message),
            an::ParseOutcome::ok)
      << message;
  EXPECT_EQ(o.max_batch_records, 100U);
  EXPECT_EQ(o.max_body, an::batch_request_bytes(100));

  args.push_back("--max-body");
  args.push_back("1000000");
  ASSERT_EQ(an::parse_options(static_cast<int>(args.size()), args.data(), &o, &message),
            an::ParseOutcome::ok);
  EXPECT_EQ(o.max_body, 1000000U);  // given: kept

  for (const char* bad : {"0", "1048577", "x"}) {
    std::vector<const char*> a(std::begin(base), std::end(base));
    a.push_back("--max-batch-records");
    a.push_back(bad);
    EXPECT_EQ(an::parse_options(static_cast<int>(a.size()), a.data(), &o, &message),
              an::ParseOutcome::usage_error)
        << bad;
  }
}

}  // namespace
