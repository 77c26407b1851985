// The shuffler's crowd thresholds are signed into every batch, and the
// analyzer takes a batch only if they are its own: another l or another
// sigma is refused (409 threshold_mismatch over HTTP) before any state is
// read, so nothing is applied, no replay digest is consumed, no batch id is
// claimed and no central-DP release is charged. A batch of the format
// before thresholds (2) is refused with a message that names it, never read
// as the new one; a non-canonical encoding of the thresholds is malformed.
#include <gtest/gtest.h>
#include <sodium.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "analyzer_test_support.hpp"
#include "wire/le_bytes.hpp"

namespace {

using analyzer_test::Deployment;
using analyzer_test::Harness;
using analyzer_test::TempDir;
namespace an = p2b::analyzer;
namespace sv = p2b::server;

// Where the header fields of format 3 sit (wire/batch_format.hpp).
constexpr std::size_t kThresholdAt = 8 + sv::kBatchIdBytes + 4 + p2b::kFingerprintBytes;
constexpr std::size_t kSigmaAt = kThresholdAt + 4;

an::AnalyzerSettings settings_with(std::size_t l, double sigma) {
  an::AnalyzerSettings s = analyzer_test::settings(2, l);
  s.threshold_noise = sigma;
  s.clock = [] { return uint64_t{1795000000}; };
  return s;
}

// An analyzer with the given thresholds, and optionally central DP, so that
// a refusal can be shown to charge nothing.
struct Node {
  std::ostringstream log_text;
  an::Logger log{&log_text};
  an::Metrics metrics;
  std::unique_ptr<an::SqliteModelStore> store;
  std::unique_ptr<an::Analyzer> analyzer;
  Node(const Deployment& dep, const std::string& db, std::size_t l, double sigma,
       an::CentralDpConfig dp = {}) {
    store = analyzer_test::open_store(db);
    an::AnalyzerSettings s = settings_with(l, sigma);
    s.central_dp = dp;
    analyzer = std::make_unique<an::Analyzer>(std::move(s), dep.codebook, dep.key_ring(),
                                              store.get(), &metrics, &log);
  }
  uint64_t version() const {
    const auto m = analyzer->model(an::ModelKind::private_reports);
    return m ? m->version : 0;
  }
};

// A crowd of `n` valid reports of code 1, as a shuffler with (l, sigma) signs it.
sv::Batch crowd(const Deployment& dep, std::size_t n, uint32_t l, double sigma) {
  std::vector<analyzer_test::Tuple> tuples(n, {1, 0, 1.0F});
  sv::Batch b = analyzer_test::make_batch(dep, tuples);
  b.thresholds = {l, sigma};
  return b;
}

// A refused batch left no trace: the same id and the same inner layers,
// signed again with the analyzer's own thresholds, are applied in full.
void expect_nothing_consumed(Node* node, sv::Batch batch, uint32_t l, double sigma) {
  const uint64_t version = node->version();
  batch.thresholds = {l, sigma};
  const an::BatchOutcome out = analyzer_test::apply(*node->analyzer, batch);
  ASSERT_EQ(out.result, an::BatchResult::applied) << out.error;
  EXPECT_EQ(out.applied, batch.records.size()) << "a refused batch consumed replay digests";
  EXPECT_EQ(out.version, version + 1);
}

TEST(AnalyzerBatchThresholds, AnotherLIsRefusedAndChangesNothing) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Node node(dep, tmp.file("s.db"), 3, 0);
  const sv::Batch batch = crowd(dep, 4, 2, 0);  // the shuffler runs l = 2
  const an::BatchOutcome out = analyzer_test::apply(*node.analyzer, batch);
  EXPECT_EQ(out.result, an::BatchResult::threshold_mismatch);
  EXPECT_NE(out.error.find("l=2 sigma=0"), std::string::npos) << out.error;
  EXPECT_NE(out.error.find("l=3 sigma=0"), std::string::npos) << out.error;
  EXPECT_TRUE(out.ack.empty());
  EXPECT_EQ(node.version(), 0u);
  EXPECT_FALSE(node.store->find_batch(batch.id).has_value()) << "the id was claimed";
  EXPECT_EQ(node.analyzer->statistics(an::ModelKind::private_reports).total_count(), 0u);
  EXPECT_NE(node.metrics.prometheus_text().find(
                "p2b_analyzer_batches_refused_total{reason=\"threshold_mismatch\"} 1"),
            std::string::npos)
      << node.metrics.prometheus_text();
  EXPECT_NE(node.log_text.str().find("\"reason\":\"threshold_mismatch\""), std::string::npos);
  expect_nothing_consumed(&node, batch, 3, 0);
}

TEST(AnalyzerBatchThresholds, AnotherSigmaIsRefusedToTheLastBit) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Node node(dep, tmp.file("s.db"), 2, 1.5);
  for (const double sigma : {0.0, 3.0, std::nextafter(1.5, 2.0)}) {
    const an::BatchOutcome out = analyzer_test::apply(*node.analyzer, crowd(dep, 40, 2, sigma));
    EXPECT_EQ(out.result, an::BatchResult::threshold_mismatch) << sigma;
  }
  // A plain threshold at the shuffler behind a noisy one here is refused too.
  EXPECT_NE(node.metrics.prometheus_text().find(
                "p2b_analyzer_batches_refused_total{reason=\"threshold_mismatch\"} 3"),
            std::string::npos);
  EXPECT_EQ(node.version(), 0u);
  // 40 reports against l = 2: no draw of the noise can refuse this crowd.
  expect_nothing_consumed(&node, crowd(dep, 40, 2, 0), 2, 1.5);
}

TEST(AnalyzerBatchThresholds, TheSameSettingsAreAccepted) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Node node(dep, tmp.file("s.db"), 3, 0.25);
  const an::BatchOutcome out = analyzer_test::apply(*node.analyzer, crowd(dep, 40, 3, 0.25));
  ASSERT_EQ(out.result, an::BatchResult::applied) << out.error;
  EXPECT_EQ(out.version, 1u);
  EXPECT_EQ(node.metrics.prometheus_text().find(
                "p2b_analyzer_batches_refused_total{reason=\"threshold_mismatch\"} 1"),
            std::string::npos);
}

TEST(AnalyzerBatchThresholds, ARefusalChargesNoCentralDpRelease) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Node node(dep, tmp.file("s.db"), 1, 0, an::CentralDpConfig{1.0, 1e-6, 4});
  const uint64_t left = node.analyzer->central_releases_left();
  EXPECT_EQ(analyzer_test::apply(*node.analyzer, crowd(dep, 3, 10, 0)).result,
            an::BatchResult::threshold_mismatch);
  EXPECT_EQ(node.analyzer->central_releases_left(), left);
  EXPECT_EQ(analyzer_test::apply(*node.analyzer, crowd(dep, 3, 1, 0)).result,
            an::BatchResult::applied);
  EXPECT_EQ(node.analyzer->central_releases_left(), left - 1);
}

TEST(AnalyzerBatchThresholds, TheThresholdsAreSignedAndBoundToTheDigest) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Node node(dep, tmp.file("s.db"), 3, 0);
  const sv::Batch batch = crowd(dep, 4, 3, 0);
  std::vector<uint8_t> bytes = analyzer_test::signed_bytes(batch);
  // Rewriting the thresholds in transit breaks the signature.
  bytes[kThresholdAt] = 2;
  EXPECT_EQ(node.analyzer->receive_batch(bytes).result, an::BatchResult::bad_signature);
  // The same records under other thresholds are another digest.
  sv::Batch other = batch;
  other.thresholds.sigma = 1.0;
  const std::vector<uint8_t> a = analyzer_test::signed_bytes(batch);
  const std::vector<uint8_t> b = analyzer_test::signed_bytes(other);
  EXPECT_NE(sv::batch_digest(a.data(), a.size()), sv::batch_digest(b.data(), b.size()));
}

// Format 2, byte for byte as shuffler releases before format 3 signed it.
std::vector<uint8_t> format2_bytes(const sv::Batch& b) {
  const uint8_t* sk = p2b_test::test_keys().shuffler_sign_sk;
  std::vector<uint8_t> out = {'P', '2', 'B', 'B'};
  sv::wire::put_u32(&out, 2);
  out.insert(out.end(), b.id.begin(), b.id.end());
  sv::wire::put_u32(&out, b.partition);
  uint8_t fp[p2b::kFingerprintBytes];
  crypto_generichash(fp, sizeof fp, sk + 32, p2b::kPublicKeyBytes, nullptr, 0);
  out.insert(out.end(), fp, fp + sizeof fp);
  sv::wire::put_u32(&out, static_cast<uint32_t>(b.records.size()));
  for (const sv::BatchRecord& r : b.records) {
    sv::wire::put_u32(&out, r.crowd_id);
    out.insert(out.end(), r.inner.begin(), r.inner.end());
  }
  const std::size_t n = out.size();
  out.resize(n + p2b::kSignatureBytes);
  crypto_sign_detached(out.data() + n, nullptr, out.data(), n, sk);
  return out;
}

TEST(AnalyzerBatchThresholds, AnOldFormatBatchIsRefusedByName) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2);
  const sv::Batch batch = analyzer_test::make_batch(dep, {{1, 0, 1.0F}, {2, 1, 1.0F}});
  const an::BatchOutcome out = h.analyzer->receive_batch(format2_bytes(batch));
  EXPECT_EQ(out.result, an::BatchResult::malformed);
  EXPECT_NE(out.error.find("format 2"), std::string::npos) << out.error;
  EXPECT_NE(out.error.find("upgrade the shuffler"), std::string::npos) << out.error;
  EXPECT_EQ(h.analyzer->model(an::ModelKind::private_reports), nullptr);
  // Empty, it is shorter than this format's header: refused by name all the same.
  sv::Batch empty = batch;
  empty.records.clear();
  EXPECT_NE(h.analyzer->receive_batch(format2_bytes(empty)).error.find("format 2"),
            std::string::npos);
  // Its id is not claimed: the batch in the current format is applied.
  EXPECT_EQ(analyzer_test::apply(*h.analyzer, batch).applied, 2u);
}

TEST(AnalyzerBatchThresholds, ANonCanonicalEncodingIsMalformedThoughSigned) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2);
  const sv::Batch batch = analyzer_test::make_batch(dep, {{1, 0, 1.0F}});
  const uint8_t* sk = p2b_test::test_keys().shuffler_sign_sk;
  const auto resigned = [sk](std::vector<uint8_t> bytes, std::size_t at, uint64_t v, int width) {
    for (int i = 0; i < width; ++i) bytes[at + i] = static_cast<uint8_t>(v >> (8 * i));
    const std::size_t n = bytes.size() - p2b::kSignatureBytes;
    crypto_sign_detached(bytes.data() + n, nullptr, bytes.data(), n, sk);
    return bytes;
  };
  const std::vector<uint8_t> good = analyzer_test::signed_bytes(batch);
  const uint64_t minus_zero = uint64_t{1} << 63;
  const uint64_t nan = 0x7FF8000000000000ULL;
  const uint64_t inf = 0x7FF0000000000000ULL;
  uint64_t minus_one = 0;
  const double m1 = -1.0;
  std::memcpy(&minus_one, &m1, sizeof minus_one);
  for (const uint64_t bits : {minus_zero, nan, inf, minus_one}) {
    const an::BatchOutcome out = h.analyzer->receive_batch(resigned(good, kSigmaAt, bits, 8));
    EXPECT_EQ(out.result, an::BatchResult::malformed) << std::hex << bits;
    EXPECT_NE(out.error.find("not canonical"), std::string::npos) << out.error;
  }
  EXPECT_EQ(h.analyzer->receive_batch(resigned(good, kThresholdAt, 0, 4)).result,
            an::BatchResult::malformed)
      << "l = 0";
  EXPECT_EQ(h.analyzer->model(an::ModelKind::private_reports), nullptr);
}

TEST(AnalyzerBatchThresholds, OverHttpAMismatchIs409WithItsOwnCode) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  Harness h(dep, tmp.file("s.db"), 2);  // l = 1, sigma = 0
  const analyzer_test::Served s(&h);
  sv::Batch batch = analyzer_test::make_batch(dep, {{1, 0, 1.0F}});
  batch.thresholds = {10, 0};
  const auto res = s.post(analyzer_test::signed_bytes(batch));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 409);
  const nlohmann::json body = nlohmann::json::parse(res->body);
  EXPECT_EQ(body["error"], "threshold_mismatch");
  EXPECT_NE(body["detail"].get<std::string>().find("--threshold"), std::string::npos);
  // A conflict is another code, so the shuffler can tell the two apart.
  EXPECT_NE(body["error"], "batch_conflict");
  EXPECT_EQ(h.analyzer->model(an::ModelKind::private_reports), nullptr);
}

}  // namespace
