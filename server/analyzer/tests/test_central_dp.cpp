// Central DP of the released statistics: the zCDP calibration, the tree
// mechanism's nodes and noise, positive definiteness of every released A,
// the analyzer's use of it (header, store binding, horizon, gating), and the
// sybil attack it answers.
#include <gtest/gtest.h>
#include <pb_decode.h>

#include <Eigen/Dense>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "analyzer_test_support.hpp"
#include "central_dp.hpp"
#include "dp/spd_projection.hpp"
#include "dp/tree_noise.hpp"
#include "dp/zcdp.hpp"
#include "options.hpp"
#include "p2b.pb.h"
#include "sybil_read_back.hpp"
#include "wire/model_bundle.hpp"

namespace {

using analyzer_test::Deployment;
using analyzer_test::TempDir;
using analyzer_test::Tuple;
namespace an = p2b::analyzer;
namespace dp = p2b::dp;

dp::NoiseSeed seed_of(uint8_t v) {
  dp::NoiseSeed s{};
  s.fill(v);
  return s;
}

// ---- calibration ----

TEST(AnalyzerCentralDp, ZcdpConversionRoundTrips) {
  for (const double delta : {1e-3, 1e-6, 1e-10}) {
    for (const double eps : {0.05, 0.5, 1.0, 2.0, 8.0, 50.0}) {
      const double rho = dp::zcdp_rho(eps, delta);
      EXPECT_GT(rho, 0.0);
      EXPECT_NEAR(dp::zcdp_epsilon(rho, delta), eps, 1e-12 * eps) << eps << " " << delta;
    }
  }
}

TEST(AnalyzerCentralDp, SigmaFallsWithEpsilonAndDeltaAndGrowsWithCompositions) {
  double last = INFINITY;
  for (const double eps : {0.1, 0.5, 1.0, 2.0, 8.0}) {
    const double s = dp::gaussian_sigma(eps, 1e-6, 1.0, 21);
    EXPECT_LT(s, last);
    last = s;
  }
  EXPECT_LT(dp::gaussian_sigma(1, 1e-3, 1, 21), dp::gaussian_sigma(1, 1e-9, 1, 21));
  // Compositions add in zCDP: k releases need sqrt(k) times the noise.
  EXPECT_NEAR(dp::gaussian_sigma(1, 1e-6, 1, 16), 4 * dp::gaussian_sigma(1, 1e-6, 1, 1), 1e-9);
  // Sensitivity scales it linearly, and the total cost is what was asked.
  const double s = dp::gaussian_sigma(1, 1e-6, an::kReportSensitivity, 21);
  const double rho_total = 21 * 3.0 / (2 * s * s);
  EXPECT_NEAR(dp::zcdp_epsilon(rho_total, 1e-6), 1.0, 1e-9);
}

TEST(AnalyzerCentralDp, TreeLevelsCoverTheHorizon) {
  EXPECT_EQ(dp::tree_levels(1), 1u);
  EXPECT_EQ(dp::tree_levels(2), 2u);
  EXPECT_EQ(dp::tree_levels(3), 3u);
  EXPECT_EQ(dp::tree_levels(4), 3u);
  EXPECT_EQ(dp::tree_levels(uint64_t{1} << 20), 21u);
  EXPECT_EQ(dp::tree_levels((uint64_t{1} << 20) + 1), 22u);
}

TEST(AnalyzerCentralDp, ReleaseNodesPartitionTheBatchesAndEachBatchTouchesOneNodePerLevel) {
  EXPECT_EQ(dp::release_nodes(1), (std::vector<dp::TreeNode>{{0, 0}}));
  EXPECT_EQ(dp::release_nodes(6), (std::vector<dp::TreeNode>{{2, 0}, {1, 2}}));
  const uint64_t horizon = 100;
  std::map<uint64_t, std::set<std::pair<uint32_t, uint64_t>>> nodes_of_batch;
  for (uint64_t t = 1; t <= horizon; ++t) {
    std::vector<int> covered(t + 1, 0);
    for (const dp::TreeNode& n : dp::release_nodes(t)) {
      for (uint64_t i = n.index << n.level; i < (n.index + 1) << n.level; ++i) {
        ASSERT_LT(i, t);
        ++covered[i + 1];
        nodes_of_batch[i + 1].insert({n.level, n.index});
      }
    }
    for (uint64_t i = 1; i <= t; ++i) ASSERT_EQ(covered[i], 1) << "t " << t << " batch " << i;
  }
  for (const auto& [batch, nodes] : nodes_of_batch) {
    EXPECT_LE(nodes.size(), dp::tree_levels(horizon)) << batch;
    std::set<uint32_t> levels;
    for (const auto& n : nodes) levels.insert(n.first);
    EXPECT_EQ(levels.size(), nodes.size()) << "two nodes of one level hold batch " << batch;
  }
}

TEST(AnalyzerCentralDp, NodeNoiseIsStandardNormalAndAFunctionOfSeedAndNodeOnly) {
  const std::size_t n = 200001;  // odd: the last Box-Muller pair is cut
  std::vector<double> z(n), again(n), other_node(n), other_seed(n);
  dp::node_normals(seed_of(1), {3, 5}, z.data(), n);
  dp::node_normals(seed_of(1), {3, 5}, again.data(), n);
  dp::node_normals(seed_of(1), {3, 6}, other_node.data(), n);
  dp::node_normals(seed_of(2), {3, 5}, other_seed.data(), n);
  EXPECT_EQ(z, again);
  EXPECT_NE(z, other_node);
  EXPECT_NE(z, other_seed);
  std::vector<double> prefix(5);
  dp::node_normals(seed_of(1), {3, 5}, prefix.data(), prefix.size());
  EXPECT_TRUE(std::equal(prefix.begin(), prefix.end(), z.begin()));
  double sum = 0, sum_sq = 0, sum4 = 0, corr = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sum += z[i];
    sum_sq += z[i] * z[i];
    sum4 += z[i] * z[i] * z[i] * z[i];
    corr += z[i] * other_node[i];
  }
  // Standard errors: mean 0.0022, variance 0.0032, fourth moment 0.022.
  EXPECT_NEAR(sum / n, 0.0, 0.012);
  EXPECT_NEAR(sum_sq / n, 1.0, 0.016);
  EXPECT_NEAR(sum4 / n, 3.0, 0.12);
  EXPECT_NEAR(corr / n, 0.0, 0.012);
}

// ---- the mechanism ----

an::Statistics few_reports(uint32_t d, uint32_t arms, int n, uint64_t seed) {
  an::Statistics s(d, arms);
  std::mt19937_64 rng(seed);
  std::gamma_distribution<double> g(1.0, 1.0);
  std::vector<double> x(d);
  for (int i = 0; i < n; ++i) {
    double total = 0;
    for (double& v : x) total += (v = g(rng));
    for (double& v : x) v /= total;  // on the simplex, as centroids are
    s.add(static_cast<uint32_t>(rng() % arms), x.data(), static_cast<double>(rng() % 2));
  }
  return s;
}

TEST(AnalyzerCentralDp, ConfigurationIsChecked) {
  EXPECT_THROW(an::CentralDp(an::CentralDpConfig{0.0, 1e-6, 16}, seed_of(1)),
               std::invalid_argument);
  EXPECT_THROW(an::CentralDp(an::CentralDpConfig{1.0, 0.0, 16}, seed_of(1)), std::invalid_argument);
  EXPECT_THROW(an::CentralDp(an::CentralDpConfig{1.0, 1e-6, 0}, seed_of(1)), std::invalid_argument);
  const an::CentralDp dp(an::CentralDpConfig{1.0, 1e-6, 16}, seed_of(1));
  EXPECT_EQ(dp.levels(), 5u);
  EXPECT_EQ(dp.releases_left(0), 16u);
  EXPECT_EQ(dp.releases_left(16), 0u);
  const an::Statistics s(3, 2);
  EXPECT_NO_THROW(dp.release(s, 16, 1.0));
  EXPECT_THROW(dp.release(s, 17, 1.0), std::out_of_range);
  EXPECT_THROW(dp.release(s, 0, 1.0), std::out_of_range);
}

TEST(AnalyzerCentralDp, ClippingBoundsEveryReport) {
  double x[3] = {3.0, 4.0, 0.0};
  double r = 1.5;
  an::CentralDp::clip_report(x, 3, &r);
  EXPECT_NEAR(std::hypot(x[0], x[1]), 1.0, 1e-15);
  EXPECT_DOUBLE_EQ(x[0] / x[1], 0.75);
  EXPECT_EQ(r, 1.0);
  double y[2] = {0.3, 0.4};
  r = -2.0;
  an::CentralDp::clip_report(y, 2, &r);
  EXPECT_EQ(y[0], 0.3);
  EXPECT_EQ(y[1], 0.4);
  EXPECT_EQ(r, 0.0);
  r = std::nan("");
  an::CentralDp::clip_report(y, 2, &r);
  EXPECT_EQ(r, 0.0);
}

// Over many seeds, each coordinate of a release has standard deviation
// sigma * sqrt(nodes), around the exact statistics.
TEST(AnalyzerCentralDp, ReleasedNoiseHasTheCalibratedScale) {
  const an::CentralDpConfig cfg{1.0, 1e-6, 1024};
  const an::Statistics exact = few_reports(3, 2, 40, 3);
  for (const uint64_t t : {uint64_t{1}, uint64_t{7}}) {  // 1 node, then 3
    const int runs = 3000;
    double sum_b = 0, sq_b = 0, sum_n = 0, sq_n = 0, sum_a = 0, sq_a = 0;
    double sigma = 0, shift = 0;
    for (int i = 0; i < runs; ++i) {
      dp::NoiseSeed seed{};
      for (int j = 0; j < 4; ++j) seed[j] = static_cast<uint8_t>(i >> (8 * j));
      const an::CentralDp dp(cfg, seed);
      sigma = dp.sigma();
      const an::NoisyRelease r = dp.release(exact, t, 1.0);
      shift = r.shift;
      ASSERT_EQ(r.nodes, t == 1 ? 1u : 3u);
      const double eb = r.b[4] - exact.reward_sum(1)[1];
      const double en = r.counts[1] - static_cast<double>(exact.count(1));
      // An off-diagonal entry of arm 0 (no eigenvalue was raised: see below).
      const double ea = r.a[1 * 3 + 2] - exact.gram(0)[1 * 3 + 2];
      sum_b += eb, sq_b += eb * eb, sum_n += en, sq_n += en * en, sum_a += ea, sq_a += ea * ea;
    }
    const double want = sigma * std::sqrt(t == 1 ? 1.0 : 3.0);
    // The standard deviation of a sample sd over 3000 runs is 1.3 %.
    for (const auto& [s, q] : {std::pair{sum_b, sq_b}, {sum_n, sq_n}, {sum_a, sq_a}}) {
      EXPECT_NEAR(s / runs, 0.0, 0.08 * want);
      EXPECT_NEAR(std::sqrt(q / runs), want, 0.06 * want);
    }
    EXPECT_GT(shift, 10 * want);
  }
}

bool cholesky_ok(const double* a, uint32_t d) {
  const Eigen::Map<const Eigen::MatrixXd> m(a, d, d);
  return Eigen::LLT<Eigen::MatrixXd>(m).info() == Eigen::Success;
}

// Tiny counts, huge noise, a tiny prior: every released A is symmetric and
// positive definite with eigenvalues >= lambda (up to rounding).
TEST(AnalyzerCentralDp, EveryReleasedMatrixIsSymmetricPositiveDefinite) {
  for (const uint32_t d : {1u, 2u, 5u, 10u, 32u}) {
    for (const double eps : {0.01, 1.0, 100.0}) {
      for (const double lambda : {1e-6, 1.0}) {
        for (int rep = 0; rep < 6; ++rep) {
          const an::CentralDp dp(an::CentralDpConfig{eps, 1e-6, 1u << 20},
                                 seed_of(static_cast<uint8_t>(rep + 10 * d)));
          const an::Statistics exact = few_reports(d, 3, rep, static_cast<uint64_t>(rep));
          const an::NoisyRelease r = dp.release(exact, (1u << 20) - 1 - rep, lambda);
          for (uint32_t arm = 0; arm < 3; ++arm) {
            const double* a = r.a.data() + static_cast<std::size_t>(arm) * d * d;
            for (uint32_t i = 0; i < d; ++i)
              for (uint32_t j = 0; j < d; ++j) ASSERT_EQ(a[i * d + j], a[j * d + i]);
            ASSERT_TRUE(cholesky_ok(a, d)) << "d " << d << " eps " << eps;
            const Eigen::Map<const Eigen::MatrixXd> m(a, d, d);
            EXPECT_GE(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(m).eigenvalues().minCoeff(),
                      lambda * (1 - 1e-6));
          }
        }
      }
    }
  }
}

// The shift is a high-probability bound on the noise matrix's spectral norm:
// the eigenvalue floor is a fallback that essentially never acts.
TEST(AnalyzerCentralDp, ShiftCoversTheNoiseMatrix) {
  int raised = 0, total = 0;
  for (const uint32_t d : {1u, 4u, 16u, 64u}) {
    const an::Statistics zero(d, 4);
    for (int rep = 0; rep < (d > 16 ? 6 : 50); ++rep) {
      const an::CentralDp dp(an::CentralDpConfig{1.0, 1e-6, 1u << 20},
                             seed_of(static_cast<uint8_t>(rep)));
      const an::NoisyRelease r = dp.release(zero, 1 + 37 * rep, 1.0);
      for (uint32_t arm = 0; arm < 4; ++arm) {
        const auto first = static_cast<std::ptrdiff_t>(arm) * d * d;
        std::vector<double> a(r.a.begin() + first, r.a.begin() + first + std::ptrdiff_t{d} * d);
        // A = (1 + shift) I + N; N's smallest eigenvalue above -shift means
        // nothing is left for the floor to raise.
        raised += dp::raise_eigenvalues(a.data(), d, 1.0) ? 1 : 0;
        ++total;
        const Eigen::Map<const Eigen::MatrixXd> m(a.data(), d, d);
        const double top =
            Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(m).eigenvalues().maxCoeff();
        EXPECT_LT(top - 1.0, 2 * r.shift);  // and ||N|| < shift from above too
      }
    }
  }
  EXPECT_EQ(raised, 0) << "of " << total;
}

TEST(AnalyzerCentralDp, RaiseEigenvaluesLeavesAGoodMatrixAloneAndRepairsABadOne) {
  double good[4] = {2.0, 0.5, 0.5, 2.0};
  const double copy[4] = {2.0, 0.5, 0.5, 2.0};
  EXPECT_FALSE(dp::raise_eigenvalues(good, 2, 1.0));
  EXPECT_TRUE(std::equal(good, good + 4, copy));
  double bad[4] = {1.0, 3.0, 3.0, 1.0};  // eigenvalues 4 and -2
  EXPECT_TRUE(dp::raise_eigenvalues(bad, 2, 0.5));
  EXPECT_EQ(bad[1], bad[2]);
  EXPECT_TRUE(cholesky_ok(bad, 2));
  EXPECT_NEAR(bad[0] + bad[3], 4.5, 1e-12);  // trace: 4 + 0.5
}

// ---- in the analyzer ----

// The shared harness with central DP set (and l = 1, the fixed clock).
struct DpHarness : analyzer_test::Harness {
  DpHarness(const Deployment& dep, const std::string& db, uint32_t actions, an::CentralDpConfig dp,
            uint64_t min_reports = 0, an::AggregationMode mode = an::AggregationMode::centroid)
      : Harness(dep, db, actions, mode, false, 1.0, min_reports, 1, dp) {}
};

p2b_v1_ModelHeader header_of(const std::vector<uint8_t>& bundle) {
  p2b_v1_ModelHeader h = p2b_v1_ModelHeader_init_zero;
  pb_istream_t is = pb_istream_from_buffer(bundle.data() + 4, bundle.size() - 4);
  EXPECT_TRUE(pb_decode_delimited(&is, p2b_v1_ModelHeader_fields, &h));
  return h;
}

const an::CentralDpConfig kDp{1.0, 1e-6, uint64_t{1} << 20};

TEST(AnalyzerCentralDp, TheModelCarriesEpsilonAndDeltaAndAppliesOnADevice) {
  const uint32_t d = 5, k = 16, actions = 3;
  const Deployment dep(d, k);
  const TempDir tmp;
  DpHarness h(dep, tmp.file("s.db"), actions, kDp);
  // Two reports: tiny counts under noise of sigma ~ 43.
  analyzer_test::apply(*h.analyzer, analyzer_test::make_batch(dep, {{1, 0, 1.0F}, {2, 2, 0.0F}}));
  const auto model = h.analyzer->model(an::ModelKind::private_reports);
  ASSERT_TRUE(model);
  const p2b_v1_ModelHeader hdr = header_of(model->bundle);
  EXPECT_EQ(hdr.central_epsilon, 1.0);
  EXPECT_EQ(hdr.central_delta, 1e-6);
  auto device = p2b_test::make_agent(p2b_test::base_config(d, actions, k, 11));
  ASSERT_EQ(p2b_agent_apply_model(device.agent, model->bundle.data(), model->bundle.size()),
            P2B_OK);
  // The startup state and the metrics state the budget.
  ASSERT_NE(h.analyzer->central_dp(), nullptr);
  EXPECT_EQ(h.analyzer->central_dp()->levels(), 21u);
  EXPECT_EQ(h.analyzer->central_releases_left(), (uint64_t{1} << 20) - 1);
  const std::string m = h.metrics.prometheus_text();
  EXPECT_NE(m.find("p2b_analyzer_central_dp_epsilon 1\n"), std::string::npos) << m;
  EXPECT_NE(m.find("p2b_analyzer_central_dp_delta 1e-06\n"), std::string::npos) << m;
  EXPECT_NE(m.find("p2b_analyzer_central_dp_releases_left 1048575\n"), std::string::npos) << m;
}

// Off, the bundle is exactly what the exact statistics signed directly give.
TEST(AnalyzerCentralDp, OffTheModelIsTheExactOneBitForBit) {
  const uint32_t d = 4, k = 16, actions = 3;
  const Deployment dep(d, k);
  const TempDir tmp;
  DpHarness h(dep, tmp.file("s.db"), actions, an::CentralDpConfig{});
  std::mt19937_64 rng(5);
  analyzer_test::apply(*h.analyzer, analyzer_test::make_batch(
                                        dep, analyzer_test::random_tuples(rng, 100, k, actions)));
  const auto model = h.analyzer->model(an::ModelKind::private_reports);
  ASSERT_TRUE(model);
  std::vector<double> a, b;
  h.analyzer->statistics(an::ModelKind::private_reports).model_arrays(1.0, &a, &b);
  p2b::server::ModelSpec spec;
  spec.dim = d;
  spec.n_actions = actions;
  std::memcpy(spec.codebook_fp, dep.codebook.info.fingerprint, sizeof spec.codebook_fp);
  spec.version = 1;
  spec.created_unix = 1795000000;
  std::vector<uint8_t> want;
  std::string err;
  ASSERT_TRUE(p2b::server::build_model_bundle(spec, a.data(), b.data(),
                                              p2b_test::test_keys().sign_sk, &want, &err));
  EXPECT_EQ(model->bundle, want);
  EXPECT_EQ(header_of(model->bundle).central_epsilon, 0.0);
  EXPECT_EQ(h.metrics.prometheus_text().find("central_dp"), std::string::npos);
}

TEST(AnalyzerCentralDp, PaperModeIsRefused) {
  const Deployment dep(4, 16);
  const TempDir tmp;
  EXPECT_THROW(DpHarness(dep, tmp.file("s.db"), 3, kDp, 0, an::AggregationMode::paper),
               std::invalid_argument);
}

// The node noise survives a restart: the release after batch 2 is the same
// whether or not the analyzer restarted in between. Other settings, or none,
// are refused on that store.
TEST(AnalyzerCentralDp, TheStoreKeepsTheNoiseAndItsSettings) {
  const Deployment dep(4, 16);
  const TempDir tmp;
  std::mt19937_64 rng(6);
  const auto b1 = analyzer_test::make_batch(dep, analyzer_test::random_tuples(rng, 30, 16, 3));
  const auto b2 = analyzer_test::make_batch(dep, analyzer_test::random_tuples(rng, 30, 16, 3));
  std::vector<uint8_t> straight;
  {
    DpHarness h(dep, tmp.file("s.db"), 3, kDp);
    analyzer_test::apply(*h.analyzer, b1);
    h.store.reset();  // closes the database, checkpointing the WAL
  }
  std::filesystem::copy_file(tmp.file("s.db"), tmp.file("copy.db"));
  {
    DpHarness h(dep, tmp.file("s.db"), 3, kDp);
    analyzer_test::apply(*h.analyzer, b2);
    straight = h.analyzer->model(an::ModelKind::private_reports)->bundle;
  }
  {
    DpHarness h(dep, tmp.file("copy.db"), 3, kDp);
    analyzer_test::apply(*h.analyzer, b2);
    EXPECT_EQ(h.analyzer->model(an::ModelKind::private_reports)->bundle, straight);
  }
  EXPECT_THROW(DpHarness(dep, tmp.file("s.db"), 3, an::CentralDpConfig{}), an::StoreError);
  EXPECT_THROW(DpHarness(dep, tmp.file("s.db"), 3, an::CentralDpConfig{2.0, 1e-6, 1u << 20}),
               an::StoreError);
  EXPECT_THROW(DpHarness(dep, tmp.file("s.db"), 3, an::CentralDpConfig{1.0, 1e-6, 1u << 10}),
               an::StoreError);
  // Another store draws another seed: other noise for the same data.
  DpHarness other(dep, tmp.file("other.db"), 3, kDp);
  analyzer_test::apply(*other.analyzer, b1);
  analyzer_test::apply(*other.analyzer, b2);
  EXPECT_NE(other.analyzer->model(an::ModelKind::private_reports)->bundle, straight);
}

TEST(AnalyzerCentralDp, PastTheHorizonBatchesAreRefusedAndTheLastModelStays) {
  const Deployment dep(4, 16);
  const TempDir tmp;
  DpHarness h(dep, tmp.file("s.db"), 3, an::CentralDpConfig{1.0, 1e-6, 2});
  analyzer_test::apply(*h.analyzer, analyzer_test::make_batch(dep, {{1, 0, 1.0F}}));
  analyzer_test::apply(*h.analyzer, analyzer_test::make_batch(dep, {{2, 1, 1.0F}}));
  const auto last = h.analyzer->model(an::ModelKind::private_reports);
  const an::Statistics before = h.analyzer->statistics(an::ModelKind::private_reports);
  const auto third = analyzer_test::make_batch(dep, {{3, 2, 1.0F}});
  EXPECT_THROW(analyzer_test::apply(*h.analyzer, third), an::CentralDpExhausted);
  EXPECT_EQ(h.analyzer->model(an::ModelKind::private_reports), last);
  EXPECT_EQ(h.analyzer->statistics(an::ModelKind::private_reports), before);
  EXPECT_FALSE(h.store->find_batch(third.id).has_value());  // the id is not claimed either
  EXPECT_EQ(h.analyzer->central_releases_left(), 0u);
  const std::string m = h.metrics.prometheus_text();
  EXPECT_NE(m.find("p2b_analyzer_central_dp_releases_left 0\n"), std::string::npos);
  EXPECT_NE(m.find("p2b_analyzer_central_dp_refused_total 1\n"), std::string::npos);
  EXPECT_NE(h.log_text.str().find("central_dp_horizon_exhausted"), std::string::npos);
}

// --min-reports compares with the released (noisy) count: with no report at
// all, some stores serve their model (noise above the bar), which the exact
// count (0) would never do.
TEST(AnalyzerCentralDp, MinReportsGatesOnTheNoisyCount) {
  const Deployment dep(4, 16);
  const TempDir tmp;
  int served = 0, withheld = 0;
  for (int i = 0; i < 24 && (served == 0 || withheld == 0); ++i) {
    DpHarness h(dep, tmp.file("s" + std::to_string(i) + ".db"), 3, kDp, 1);
    analyzer_test::apply(*h.analyzer, analyzer_test::make_batch(dep, {}));
    (h.analyzer->model(an::ModelKind::private_reports) ? served : withheld) += 1;
  }
  EXPECT_GT(served, 0);
  EXPECT_GT(withheld, 0);
}

// The attack central DP answers (sybil_read_back.hpp), on SQLite: one batch
// holds the sybils' crowd (and the victim), one model is released.
analyzer_test::ReadBack attack(const Deployment& dep, const std::string& db, an::CentralDpConfig dp,
                               bool with_victim) {
  if (dp.enabled()) {
    // A fixed noise seed: with the store's fresh CSPRNG seed the bounds
    // fail about once in a few thousand runs (a 4-dim normal near zero).
    analyzer_test::open_store(db)->record_central_dp(
        {dp.epsilon, dp.delta, dp.horizon, seed_of(with_victim ? 41 : 42)});
  }
  DpHarness h(dep, db, analyzer_test::kSybilActions, dp);
  analyzer_test::apply(*h.analyzer,
                       analyzer_test::make_batch(dep, analyzer_test::sybil_crowd(with_victim)));
  return analyzer_test::read_back(dep, h.analyzer->model(an::ModelKind::private_reports)->bundle,
                                  dp);
}

TEST(AnalyzerCentralDp, SybilsReadTheVictimBackOnlyWithoutCentralDp) {
  const Deployment dep(4, 16);
  const TempDir tmp;
  // Off: the residual is the victim's report, to float rounding on the device.
  analyzer_test::expect_read_back(attack(dep, tmp.file("off.db"), an::CentralDpConfig{}, true));
  // On: missed by far more than the report itself, with the victim in the
  // data and without.
  for (const bool with_victim : {true, false}) {
    SCOPED_TRACE(with_victim);
    analyzer_test::expect_no_read_back(
        attack(dep, tmp.file(with_victim ? "on1.db" : "on0.db"), kDp, with_victim));
  }
  // The noise per coordinate dwarfs the sensitivity of one report.
  const an::CentralDp calc(kDp, seed_of(0));
  EXPECT_GT(calc.sigma(), 20 * an::kReportSensitivity);
}

// ---- the flags ----

an::ParseOutcome parse(std::vector<const char*> args, an::Options* o, std::string* err) {
  args.insert(args.begin(), "p2b-analyzer");
  return an::parse_options(static_cast<int>(args.size()), args.data(), o, err);
}

TEST(AnalyzerCentralDp, FlagsAreRequiredAndChecked) {
  an::Options o;
  std::string err;
  ASSERT_EQ(parse({"--keys", "k", "--codebook", "c", "--store", "s", "--actions", "3",
                   "--shuffler-key", "s.pk"},
                  &o, &err),
            an::ParseOutcome::usage_error)
      << "no default: the operator chooses";
  ASSERT_EQ(parse({"--keys", "k", "--codebook", "c", "--store", "s", "--actions", "3",
                   "--shuffler-key", "s.pk", "--central-epsilon", "off"},
                  &o, &err),
            an::ParseOutcome::ok)
      << err;
  EXPECT_EQ(o.central_epsilon, 0.0);
  EXPECT_EQ(o.central_delta, 1e-6);
  EXPECT_EQ(o.central_horizon, uint64_t{1} << 20);
  ASSERT_EQ(parse({"--keys", "k", "--codebook", "c", "--store", "s", "--actions", "3",
                   "--shuffler-key", "s.pk", "--central-epsilon", "0.5", "--central-delta", "1e-9",
                   "--central-horizon", "4096"},
                  &o, &err),
            an::ParseOutcome::ok)
      << err;
  EXPECT_EQ(o.central_epsilon, 0.5);
  EXPECT_EQ(o.central_delta, 1e-9);
  EXPECT_EQ(o.central_horizon, 4096u);
  for (const std::vector<const char*>& bad :
       std::vector<std::vector<const char*>>{{"--central-epsilon", "-1"},
                                             {"--central-epsilon", "0"},
                                             {"--central-epsilon", "x"},
                                             {"--central-epsilon", "off", "--central-delta", "0"},
                                             {"--central-epsilon", "1", "--central-delta", "0.5"},
                                             {"--central-epsilon", "1", "--central-horizon", "0"},
                                             {"--central-epsilon", "1", "--mode", "paper"}}) {
    std::vector<const char*> args{"--keys",    "k", "--codebook",     "c",   "--store", "s",
                                  "--actions", "3", "--shuffler-key", "s.pk"};
    args.insert(args.end(), bad.begin(), bad.end());
    EXPECT_EQ(parse(args, &o, &err), an::ParseOutcome::usage_error) << bad[0] << " " << bad[1];
  }
  // Paper mode has no bound for the noise: it takes off, said so.
  ASSERT_EQ(parse({"--keys", "k", "--codebook", "c", "--store", "s", "--actions", "3",
                   "--shuffler-key", "s.pk", "--mode", "paper", "--central-epsilon", "1"},
                  &o, &err),
            an::ParseOutcome::usage_error);
  EXPECT_NE(err.find("paper mode takes --central-epsilon off"), std::string::npos) << err;
  EXPECT_EQ(parse({"--keys", "k", "--codebook", "c", "--store", "s", "--actions", "3",
                   "--shuffler-key", "s.pk", "--mode", "paper", "--central-epsilon", "off"},
                  &o, &err),
            an::ParseOutcome::ok)
      << err;
}

}  // namespace
