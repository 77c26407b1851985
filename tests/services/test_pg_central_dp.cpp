// Central DP on PostgreSQL, in-process against a throwaway cluster: the
// publication keeps its noise seed and its ledger charge in the transaction
// that stores the model (a publication that does not commit leaves
// neither, a restarted publisher makes the same noise and no version is
// charged twice), every node is bound to one choice, and the sybil
// read-back (sybil_read_back.hpp) fails against a PostgreSQL deployment as
// it does on SQLite.
#include <gtest/gtest.h>
#include <pb_decode.h>
#include <sodium.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyzer_test_support.hpp"
#include "common/pg/pg.hpp"
#include "common/store_open.hpp"
#include "features.hpp"
#include "p2b.pb.h"
#include "pg_central_dp.hpp"
#include "pg_cluster.hpp"
#include "pg_node.hpp"
#include "pg_store.hpp"
#include "service_fixture.hpp"
#include "sybil_read_back.hpp"

namespace p2b_services {
namespace {

namespace an = p2b::analyzer;
using analyzer_test::Deployment;

const an::CentralDpConfig kDp{1.0, 1e-6, uint64_t{1} << 20};

p2b::proc::PgClusterOptions no_fsync() {
  p2b::proc::PgClusterOptions options;
  options.fsync = false;
  return options;
}

an::StoreIdentity identity_of(const Deployment& dep, uint32_t actions) {
  const an::FeatureMap features(an::AggregationMode::centroid, dep.codebook);
  return {features.dim(), dep.codebook.info.dim, actions,
          an::mode_name(an::AggregationMode::centroid),
          p2b::server::hex_of(dep.codebook.info.fingerprint, p2b::kFingerprintBytes)};
}

// A fresh database on `cluster`, for one central-DP choice.
std::string new_database(const PgCluster& cluster, const std::string& name) {
  p2b::pg::Connection(cluster.url()).exec("CREATE DATABASE " + name);
  return cluster.url(name);
}

std::optional<std::vector<uint8_t>> stored_seed(const std::string& url) {
  p2b::pg::Connection conn(url);
  const p2b::pg::Result r = conn.query("SELECT seed FROM central_dp WHERE id = 1");
  if (r.rows() == 0 || r.is_null(0, 0)) return std::nullopt;
  return r.bytes(0, 0);
}

int64_t count_of(const std::string& url, const std::string& table) {
  return p2b::pg::Connection(url).query("SELECT count(*)::int8 FROM " + table).int8(0, 0);
}

// A stand-in for the publisher's builder: records the seed it was given.
an::NoisyPublication publication(uint64_t version, const p2b::dp::NoiseSeed& seed,
                                 std::vector<uint8_t>* seen) {
  seen->assign(seed.begin(), seed.end());
  an::NoisyPublication p;
  p.model.version = version;
  p.model.bundle = {static_cast<uint8_t>(version)};
  p.reports = 10 * version;
  p.released_reports = 9.5 * static_cast<double>(version);
  return p;
}

TEST(PgCentralDp, APublicationThatDoesNotCommitLeavesNoSeedNorChargeAndARestartMakesTheSameNoise) {
  const Deployment dep(4, 16);
  const auto cluster = PgCluster::start_primary(no_fsync());
  const std::string url = cluster->url();
  auto first = std::make_unique<an::PgAnalyzerStore>(url, identity_of(dep, 3));
  first->bind_central_dp(kDp);
  ASSERT_TRUE(first->try_lead());
  std::vector<uint8_t> killed, s1, s2;
  // Killed while building (after the seed was drawn): nothing remains.
  EXPECT_THROW(
      first->store_noisy_model(1, 100,
                               [&](const p2b::dp::NoiseSeed& seed) -> an::NoisyPublication {
                                 killed.assign(seed.begin(), seed.end());
                                 throw std::runtime_error("killed");
                               }),
      std::runtime_error);
  EXPECT_FALSE(stored_seed(url)) << "a seed whose noise was never released is not kept";
  EXPECT_EQ(count_of(url, "central_dp_ledger"), 0);
  EXPECT_EQ(count_of(url, "models"), 0);
  first->store_noisy_model(
      1, 100, [&](const p2b::dp::NoiseSeed& seed) { return publication(1, seed, &s1); });
  ASSERT_EQ(stored_seed(url), s1) << "the seed is stored with the publication";
  EXPECT_EQ(first->central_dp_charges(), 1U);
  // Publication 1 again (a publisher that lost its commit's answer): refused,
  // never charged twice.
  std::vector<uint8_t> again;
  EXPECT_THROW(
      first->store_noisy_model(
          1, 101, [&](const p2b::dp::NoiseSeed& seed) { return publication(1, seed, &again); }),
      std::exception);
  EXPECT_EQ(first->central_dp_charges(), 1U);
  const std::optional<an::StoredModel> v1 =
      first->latest_model(an::ModelKind::private_reports, 0, nullptr);
  ASSERT_TRUE(v1);
  EXPECT_EQ(v1->released_reports, 9.5) << "the noisy count is what --min-reports sees";

  // The publisher dies; its successor draws the same node noise.
  first.reset();
  an::PgAnalyzerStore second(url, identity_of(dep, 3));
  second.bind_central_dp(kDp);
  ASSERT_TRUE(eventually(5, [&] { return second.try_lead(); }));
  second.store_noisy_model(
      2, 102, [&](const p2b::dp::NoiseSeed& seed) { return publication(2, seed, &s2); });
  EXPECT_EQ(s2, s1);
  EXPECT_EQ(second.central_dp_charges(), 2U);
  p2b::pg::Connection conn(url);
  const p2b::pg::Result nodes =
      conn.query("SELECT version, nodes FROM central_dp_ledger ORDER BY version");
  ASSERT_EQ(nodes.rows(), 2);
  EXPECT_EQ(nodes.int8(0, 0), 1);
  EXPECT_EQ(nodes.int4(0, 1), 1);  // release 1: node (0, 0)
  EXPECT_EQ(nodes.int8(1, 0), 2);
  EXPECT_EQ(nodes.int4(1, 1), 1);  // release 2: node (1, 0)
}

TEST(PgCentralDp, EveryNodeIsBoundToOneChoiceAndTheLedgerStopsAtTheHorizon) {
  const Deployment dep(4, 16);
  const auto cluster = PgCluster::start_primary(no_fsync());
  const std::string on = new_database(*cluster, "dp_on");
  an::PgAnalyzerStore a(on, identity_of(dep, 3));
  a.bind_central_dp(kDp);
  an::PgAnalyzerStore b(on, identity_of(dep, 3));
  EXPECT_NO_THROW(b.bind_central_dp(kDp));
  EXPECT_THROW(b.bind_central_dp(an::CentralDpConfig{}), p2b::common::StoreRefused)
      << "exact sums after noisy ones would undo the promise";
  EXPECT_THROW(b.bind_central_dp(an::CentralDpConfig{2.0, 1e-6, kDp.horizon}),
               p2b::common::StoreRefused);
  EXPECT_THROW(b.bind_central_dp(an::CentralDpConfig{1.0, 1e-6, 1024}), p2b::common::StoreRefused);
  // An "off" database may be turned on (as a SQLite store may), not back.
  const std::string off = new_database(*cluster, "dp_off");
  an::PgAnalyzerStore c(off, identity_of(dep, 3));
  c.bind_central_dp(an::CentralDpConfig{});
  an::PgAnalyzerStore d(off, identity_of(dep, 3));
  EXPECT_NO_THROW(d.bind_central_dp(kDp));
  EXPECT_THROW(c.bind_central_dp(an::CentralDpConfig{}), p2b::common::StoreRefused);
  // c still believes "off": its next publication is refused, not exact.
  ASSERT_TRUE(c.try_lead());
  an::SignedModel m;
  m.version = 1;
  m.bundle = {1};
  EXPECT_THROW(c.store_model(an::ModelKind::private_reports, m, 1), an::StoreError);
  // Past the horizon, and twice, nothing is charged.
  p2b::pg::Connection conn(on);
  const an::CentralDpConfig two{1.0, 1e-6, 2};
  p2b::pg::Transaction tx(conn);
  EXPECT_NO_THROW(an::pg_central_dp::charge(conn, two, 2, 1));
  EXPECT_THROW(an::pg_central_dp::charge(conn, two, 3, 1), an::StoreError);
}

// One PostgreSQL deployment (worker and publisher in one node) that takes
// the sybils' crowd as one batch and publishes one model.
std::vector<uint8_t> released_after_the_crowd(const Deployment& dep, const std::string& url,
                                              const an::CentralDpConfig& dp, bool with_victim,
                                              uint8_t seed_byte) {
  an::PgAnalyzerStore store(url, identity_of(dep, analyzer_test::kSybilActions));
  if (dp.enabled()) {
    // A fixed noise seed, as the SQLite test's: a fresh one fails the bounds
    // about once in a few thousand runs.
    store.bind_central_dp(dp);
    std::vector<uint8_t> seed(32, seed_byte);
    p2b::pg::Connection(url).query("UPDATE central_dp SET seed = $1",
                                   p2b::pg::Params().bytes(seed.data(), seed.size()));
  }
  an::PgNodeSettings settings;
  settings.analyzer = analyzer_test::settings(analyzer_test::kSybilActions);
  settings.analyzer.central_dp = dp;
  settings.publish_seconds = 0.05;
  settings.refresh = std::chrono::milliseconds(50);
  p2b::common::SecureArray<uint8_t> model_sk(an::kSignSecretBytes);
  std::copy(p2b_test::test_keys().sign_sk, p2b_test::test_keys().sign_sk + an::kSignSecretBytes,
            model_sk.fill_in_place());
  std::ostringstream log_text;
  an::Logger log(&log_text);
  an::Metrics metrics;
  an::PgNode node(std::move(settings), dep.codebook, dep.key_ring(), std::move(model_sk), &store,
                  &metrics, &log);
  const std::vector<uint8_t> batch = analyzer_test::signed_bytes(
      analyzer_test::make_batch(dep, analyzer_test::sybil_crowd(with_victim)));
  const an::BatchOutcome out = node.receive_batch(batch.data(), batch.size());
  EXPECT_EQ(out.result, an::BatchResult::applied) << out.error;
  EXPECT_TRUE(eventually(10, [&] { return node.model(an::ModelKind::private_reports) != nullptr; }))
      << log_text.str();
  const auto model = node.model(an::ModelKind::private_reports);
  if (!model) return {};
  // The header states the guarantee, as on SQLite.
  p2b_v1_ModelHeader h = p2b_v1_ModelHeader_init_zero;
  pb_istream_t is = pb_istream_from_buffer(model->bundle.data() + 4, model->bundle.size() - 4);
  EXPECT_TRUE(pb_decode_delimited(&is, p2b_v1_ModelHeader_fields, &h));
  EXPECT_EQ(h.central_epsilon, dp.enabled() ? dp.epsilon : 0.0);
  EXPECT_EQ(h.central_delta, dp.enabled() ? dp.delta : 0.0);
  return model->bundle;
}

TEST(PgCentralDp, SybilsReadTheVictimBackOnlyWithoutCentralDp) {
  const Deployment dep(4, 16);
  const auto cluster = PgCluster::start_primary(no_fsync());
  const std::vector<uint8_t> exact =
      released_after_the_crowd(dep, new_database(*cluster, "off"), an::CentralDpConfig{}, true, 0);
  ASSERT_FALSE(exact.empty());
  analyzer_test::expect_read_back(analyzer_test::read_back(dep, exact, an::CentralDpConfig{}));
  for (const bool with_victim : {true, false}) {
    SCOPED_TRACE(with_victim);
    const std::vector<uint8_t> noisy =
        released_after_the_crowd(dep, new_database(*cluster, with_victim ? "on1" : "on0"), kDp,
                                 with_victim, with_victim ? 41 : 42);
    ASSERT_FALSE(noisy.empty());
    analyzer_test::expect_no_read_back(analyzer_test::read_back(dep, noisy, kDp));
  }
}

}  // namespace
}  // namespace p2b_services
