// The shuffler and the analyzer bound to the same settings, with a real
// analyzer served in-process and the shuffler's own HTTP sink:
//  - every batch carries the shuffler's l and sigma, signed; an analyzer
//    with other thresholds answers 409 threshold_mismatch, which the
//    shuffler reports as a configuration error (log, metric, /readyz not
//    ready at once) and keeps the batch until the settings agree;
//  - a signing-key rotation while a batch awaits its ack: re-signed by the
//    new key, the batch is a conflict at the analyzer (the permanent 409 it
//    was before the earlier key was kept); with the earlier key kept, the
//    batch is re-sent signed by it, acknowledged as the duplicate it is, and
//    applied exactly once;
//  - which signing keys the shuffler loads from its --keys directories.
#include <gtest/gtest.h>
#include <sodium.h>
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include "analyzer_test_support.hpp"
#include "common/secret_keys.hpp"
#include "shuffler/analyzer_sink.hpp"
#include "shuffler/batcher.hpp"
#include "shuffler/readiness_checks.hpp"
#include "shuffler/sign_keys.hpp"
#include "shuffler/sqlite_spool.hpp"
#include "shuffler_test_support.hpp"

namespace {

namespace an = p2b::analyzer;
namespace sh = p2b::shuffler;
namespace sv = p2b::server;

constexpr uint32_t kPartition = 0;

sh::BatchingPolicy policy(std::size_t l, double sigma) {
  sh::BatchingPolicy p;
  p.partition = kPartition;
  p.interval = std::chrono::hours(1);
  p.threshold = {l, sigma};
  p.min_retry = std::chrono::milliseconds(10);
  p.max_retry = std::chrono::milliseconds(50);
  return p;
}

// A spool record as intake stores it: a real inner layer of `code`, sealed
// to the analyzer, so the analyzer applies it.
sh::SpoolRecord real_record(const analyzer_test::Deployment& dep, uint32_t code, float reward) {
  sh::SpoolRecord r;
  r.crowd_id = code;
  r.inner = dep.inner(code, 0, reward);
  r.inner_digest = sv::inner_digest(r.inner);
  crypto_generichash(r.digest.data(), r.digest.size(), r.inner.data(), r.inner.size(), nullptr, 0);
  r.partition = kPartition;
  return r;
}

void fill_real(sh::Spool* spool, const analyzer_test::Deployment& dep, uint32_t code, int n) {
  std::vector<sh::SpoolRecord> records;
  records.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) records.push_back(real_record(dep, code, 0.25F * (i % 4)));
  ASSERT_EQ(spool->insert(records).accepted, static_cast<std::size_t>(n));
}

// A shuffler signing pair other than the test deployment's.
struct SignPair {
  uint8_t pk[crypto_sign_PUBLICKEYBYTES] = {}, sk[crypto_sign_SECRETKEYBYTES] = {};
  SignPair() { crypto_sign_keypair(pk, sk); }
  sv::VerifyKey verify_key() const {
    sv::VerifyKey k{};
    EXPECT_TRUE(sv::make_verify_key(pk, &k));
    return k;
  }
};

const uint8_t* old_key() {
  return p2b_test::test_keys().shuffler_sign_sk;  // pinned by analyzer_test::settings()
}

// An analyzer on its own store, pinning `extra` besides the test shuffler
// key, with crowd threshold `l` (no noise), served over HTTP.
struct LiveAnalyzer {
  analyzer_test::Harness h;
  std::unique_ptr<analyzer_test::Served> served;
  std::unique_ptr<sh::AnalyzerSink> sink;
  LiveAnalyzer(const analyzer_test::Deployment& dep, const std::string& db, std::size_t l,
               const std::vector<sv::VerifyKey>& extra = {})
      : h(dep, db, 2, an::AggregationMode::centroid, false, 1.0, 0, l) {
    h.analyzer.reset();  // the store is bound again, with the keys this test pins
    an::AnalyzerSettings s = analyzer_test::settings(2, l);
    s.shuffler_keys.insert(s.shuffler_keys.end(), extra.begin(), extra.end());
    s.clock = [] { return uint64_t{1795000000}; };
    h.analyzer = std::make_unique<an::Analyzer>(std::move(s), dep.codebook, dep.key_ring(),
                                                h.store.get(), &h.metrics, &h.log);
    served = std::make_unique<analyzer_test::Served>(&h);
    sink = sh::make_http_sink("http://127.0.0.1:" + std::to_string(served->port()));
  }
  uint64_t reports() const {
    return h.analyzer->statistics(an::ModelKind::private_reports).total_count();
  }
  std::string metrics() { return h.metrics.prometheus_text(); }
};

bool has(const std::string& text, const std::string& line) {
  return text.find(line) != std::string::npos;
}

sh::BatchKeys keys(const uint8_t* sign_sk, std::vector<const uint8_t*> previous = {}) {
  return {sign_sk, p2b_test::test_keys().verify_pk, std::move(previous)};
}

TEST(ShufflerBoundSettings, EveryBatchCarriesTheShufflersThresholds) {
  shuffler_test::TempDir dir;
  sh::SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key(), kPartition);
  shuffler_test::FakeAnalyzer analyzer;
  sh::Metrics metrics;
  sh::Batcher batcher(spool, analyzer, metrics, policy(3, 2.5), shuffler_test::batch_keys());
  shuffler_test::fill(&spool, 1, 40);  // no draw of sigma 2.5 drops 40 against l = 3
  batcher.close_batch();
  ASSERT_TRUE(batcher.deliver_pending());
  ASSERT_EQ(analyzer.received.size(), 1U);
  const sv::Batch sent = shuffler_test::verified(analyzer.received[0]).batch;
  EXPECT_EQ(sent.thresholds.l, 3U);
  EXPECT_EQ(sent.thresholds.sigma, 2.5);
}

TEST(ShufflerBoundSettings, AThresholdMismatchIsAConfigurationErrorUntilTheSettingsAgree) {
  const analyzer_test::Deployment dep(4, 8);
  shuffler_test::TempDir dir;
  LiveAnalyzer live(dep, dir.file("analyzer.db"), 2);
  sh::SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key(), kPartition);
  // 40 reports: no draw of the shuffler's noise drops them against l = 3.
  fill_real(&spool, dep, 1, 40);
  testing::internal::CaptureStderr();
  {
    // The shuffler runs l = 3 with noise; the analyzer l = 2, plain.
    sh::Metrics metrics;
    sh::Batcher batcher(spool, *live.sink, metrics, policy(3, 1.0), keys(old_key()));
    ASSERT_EQ(batcher.close_batch().kept, 40U);
    for (int i = 0; i < 2; ++i) EXPECT_FALSE(batcher.deliver_pending());
    const sh::BatcherStatus s = batcher.status();
    EXPECT_TRUE(s.delivery.configuration);
    EXPECT_NE(s.delivery.reason.find("HTTP 409 threshold_mismatch"), std::string::npos)
        << s.delivery.reason;
    EXPECT_NE(s.delivery.reason.find("l=3 sigma=1"), std::string::npos) << s.delivery.reason;
    EXPECT_NE(s.delivery.reason.find("l=2 sigma=0"), std::string::npos) << s.delivery.reason;
    // Not ready at once, however long the grace for passing faults.
    const p2b::common::CheckResult ready = sh::delivery_check(s, std::chrono::hours(24));
    EXPECT_FALSE(ready.ok);
    EXPECT_NE(ready.detail.find("threshold_mismatch"), std::string::npos);
    EXPECT_EQ(metrics.threshold_mismatches.load(), 2U);
    const std::string text = metrics.render(40);
    EXPECT_TRUE(has(text, "p2b_shuffler_threshold_mismatches_total 2")) << text;
    EXPECT_TRUE(has(text, "p2b_shuffler_delivery_misconfigured 1")) << text;
    // Kept, and nothing reached the statistics.
    EXPECT_EQ(spool.depth(), 40U);
    EXPECT_EQ(live.reports(), 0U);
    EXPECT_TRUE(
        has(live.metrics(), "p2b_analyzer_batches_refused_total{reason=\"threshold_mismatch\"} 2"));
  }
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(has(log, "\"level\":\"error\",\"event\":\"batch_delivery_failing\"")) << log;
  EXPECT_TRUE(has(log, "\"configuration_error\":true")) << log;

  // The shuffler restarted with the analyzer's settings: the same batch goes
  // out with them, is applied, and the configuration error is over.
  sh::Metrics metrics;
  sh::Batcher batcher(spool, *live.sink, metrics, policy(2, 0), keys(old_key()));
  EXPECT_TRUE(batcher.deliver_pending());
  EXPECT_EQ(spool.depth(), 0U);
  EXPECT_EQ(live.reports(), 40U);
  EXPECT_FALSE(batcher.status().delivery.configuration);
  EXPECT_TRUE(has(metrics.render(0), "p2b_shuffler_delivery_misconfigured 0"));
}

// Run 1 signs a batch with the old key; the analyzer applies it, and the
// answer is lost on the way back (a crash, a cut connection).
class LostAnswer final : public sh::AnalyzerSink {
 public:
  explicit LostAnswer(sh::AnalyzerSink& inner) : inner_(inner) {}
  int deliver(const std::vector<uint8_t>& batch, std::string* body, std::string* detail) override {
    inner_.deliver(batch, body, detail);
    body->clear();
    *detail = "the answer was lost";
    return -1;
  }

 private:
  sh::AnalyzerSink& inner_;
};

// The batch id the spool holds, applied by the analyzer under the old key.
sv::BatchId applied_under_old_key(LiveAnalyzer* live, sh::Spool* spool) {
  LostAnswer lossy(*live->sink);
  sh::Metrics metrics;
  sh::Batcher run1(*spool, lossy, metrics, policy(1, 0), keys(old_key()));
  EXPECT_EQ(run1.close_batch().kept, 6U);
  EXPECT_FALSE(run1.deliver_pending());
  EXPECT_EQ(live->reports(), 6U);
  EXPECT_EQ(spool->depth(), 6U);
  return spool->oldest_unacknowledged(kPartition).value_or(sv::Batch{}).id;
}

TEST(ShufflerBoundSettings, ARotationWithoutTheEarlierKeyLeavesTheBatchAPermanentConflict) {
  const analyzer_test::Deployment dep(4, 8);
  shuffler_test::TempDir dir;
  const SignPair rotated;
  LiveAnalyzer live(dep, dir.file("analyzer.db"), 1, {rotated.verify_key()});
  sh::SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key(), kPartition);
  fill_real(&spool, dep, 3, 6);
  applied_under_old_key(&live, &spool);

  sh::Metrics metrics;
  sh::Batcher run2(spool, *live.sink, metrics, policy(1, 0), keys(rotated.sk));
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(run2.deliver_pending());
  EXPECT_EQ(run2.status().delivery.reason, "HTTP 409 batch_conflict");
  EXPECT_EQ(spool.depth(), 6U);
  EXPECT_EQ(live.reports(), 6U);
  EXPECT_TRUE(has(live.metrics(), "p2b_analyzer_batches_refused_total{reason=\"conflict\"} 3"));
}

TEST(ShufflerBoundSettings, ARotationKeepsTheEarlierKeyForTheAckAndAppliesTheBatchOnce) {
  const analyzer_test::Deployment dep(4, 8);
  shuffler_test::TempDir dir;
  const SignPair rotated;
  LiveAnalyzer live(dep, dir.file("analyzer.db"), 1, {rotated.verify_key()});
  sh::SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key(), kPartition);
  fill_real(&spool, dep, 3, 6);
  const sv::BatchId id = applied_under_old_key(&live, &spool);

  testing::internal::CaptureStderr();
  sh::Metrics metrics;
  sh::Batcher run2(spool, *live.sink, metrics, policy(1, 0), keys(rotated.sk, {old_key()}));
  EXPECT_TRUE(run2.deliver_pending());
  EXPECT_EQ(spool.depth(), 0U);
  EXPECT_EQ(live.reports(), 6U) << "applied twice";
  EXPECT_EQ(metrics.previous_key_acks.load(), 1U);
  EXPECT_EQ(metrics.forwarded.load(), 6U);
  const std::string text = live.metrics();
  EXPECT_TRUE(has(text, "p2b_analyzer_batches_refused_total{reason=\"conflict\"} 1")) << text;
  EXPECT_TRUE(has(text, "p2b_analyzer_batches_duplicate_total 1")) << text;

  // New batches are signed by the new key alone.
  fill_real(&spool, dep, 4, 2);
  ASSERT_EQ(run2.close_batch().kept, 2U);
  EXPECT_TRUE(run2.deliver_pending());
  EXPECT_EQ(live.reports(), 8U);
  EXPECT_EQ(metrics.previous_key_acks.load(), 1U);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(has(log, "\"signed_by\":\"previous_key\"")) << log;
  EXPECT_TRUE(has(log, "\"signed_by\":\"current_key\"")) << log;

  // The analyzer's binding is untouched: other contents under that id are a
  // conflict whichever pinned key signs them.
  sv::Batch other{id, kPartition, {dep.record(5, 1, 1.0F)}, {1, 0}};
  for (const uint8_t* sk : {old_key(), static_cast<const uint8_t*>(rotated.sk)}) {
    EXPECT_EQ(live.h.analyzer->receive_batch(sv::encode_signed_batch(other, sk)).result,
              an::BatchResult::conflict);
  }
  EXPECT_EQ(live.reports(), 8U);
}

void write_key(const std::string& path, const uint8_t* bytes, std::size_t n) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes), n);
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
}

TEST(ShufflerBoundSettings, EarlierKeyDirectoriesLendTheirSigningKeysNewestFirst) {
  shuffler_test::TempDir dir;
  const SignPair oldest, older, current;
  std::vector<std::string> dirs;
  for (const char* name : {"oldest", "box-only", "older", "copy", "current"}) {
    dirs.push_back(dir.file(name));
    std::filesystem::create_directory(dirs.back());
  }
  write_key(dirs[0] + "/shuffler.sign.sk", oldest.sk, sizeof oldest.sk);
  write_key(dirs[2] + "/shuffler.sign.sk", older.sk, sizeof older.sk);
  write_key(dirs[3] + "/shuffler.sign.sk", current.sk, sizeof current.sk);  // the same key again
  write_key(dirs[4] + "/shuffler.sign.sk", current.sk, sizeof current.sk);
  std::vector<std::string> warnings;
  const sh::SignKeys keys = sh::load_sign_keys(dirs, &warnings);
  EXPECT_EQ(sodium_memcmp(keys.current.data(), current.sk, sizeof current.sk), 0);
  ASSERT_EQ(keys.previous.size(), 2U);
  EXPECT_EQ(sodium_memcmp(keys.previous[0].data(), older.sk, sizeof older.sk), 0);
  EXPECT_EQ(sodium_memcmp(keys.previous[1].data(), oldest.sk, sizeof oldest.sk), 0);
  EXPECT_EQ(keys.previous_fingerprints.size(), 2U);
  EXPECT_EQ(keys.previous_pointers().size(), 2U);
  EXPECT_TRUE(warnings.empty());
  // The newest directory must have one.
  dirs.push_back(dir.file("box-only"));
  EXPECT_THROW(sh::load_sign_keys(dirs, &warnings), p2b::common::KeyError);
}

}  // namespace
