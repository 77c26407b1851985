// FCLUB's algorithm: the tree privatizer, the CDP ledger and the local and
// global servers (docs/fclub.md), against plain sums and closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "dp/tree_noise.hpp"
#include "dp/zcdp.hpp"
#include "fclub/cdp_ledger.hpp"
#include "fclub/federation.hpp"
#include "fclub/tree_privatizer.hpp"
#include "fclub_test_support.hpp"

namespace p2b::fclub {
namespace {

using test_support::item;
using test_support::seed_of;

TEST(TreePrivatizer, PrefixNoiseIsTheSumOfItsDecompositionNodes) {
  const TreePrivatizer tree(4, 2.5, seed_of(7));
  for (uint64_t k : {1ULL, 2ULL, 3ULL, 6ULL, 7ULL, 8ULL, 13ULL, 255ULL}) {
    Eigen::MatrixXd want_g = Eigen::MatrixXd::Zero(4, 4), g, ng;
    Eigen::VectorXd want_m = Eigen::VectorXd::Zero(4), m, nm;
    const auto nodes = dp::release_nodes(k);
    EXPECT_EQ(nodes.size(), TreePrivatizer::prefix_nodes(k));
    EXPECT_LE(nodes.size(), dp::tree_levels(k));  // at most ceil(log2 k) + 1
    for (const auto& node : nodes) {
      tree.node_noise(node.level, node.index, &ng, &nm);
      want_g += ng;
      want_m += nm;
    }
    tree.prefix_noise(k, &g, &m);
    EXPECT_EQ(g, want_g) << k;  // bit for bit: regenerated from the seed
    EXPECT_EQ(m, want_m) << k;
    EXPECT_EQ(g, g.transpose());
  }
}

TEST(TreePrivatizer, TheSameSeedGivesTheSameNoiseAndAnotherSeedOther) {
  Eigen::MatrixXd a, b, c;
  Eigen::VectorXd va, vb, vc;
  TreePrivatizer(3, 1.0, seed_of(1)).prefix_noise(5, &a, &va);
  TreePrivatizer(3, 1.0, seed_of(1)).prefix_noise(5, &b, &vb);
  TreePrivatizer(3, 1.0, seed_of(2)).prefix_noise(5, &c, &vc);
  EXPECT_EQ(a, b);
  EXPECT_EQ(va, vb);
  EXPECT_GT((a - c).norm(), 0.1);
  EXPECT_NE(derive_tree_seed(seed_of(1), 1, 0), derive_tree_seed(seed_of(1), 2, 0));
  EXPECT_NE(derive_tree_seed(seed_of(1), 1, 0), derive_tree_seed(seed_of(1), 1, 1));
}

TEST(TreePrivatizer, NodeEntriesAreCentredWithTheConfiguredSigma) {
  const double sigma = 3.0;
  const uint32_t d = 10;
  const TreePrivatizer tree(d, sigma, seed_of(9));
  double n = 0, sum = 0, sq = 0;
  Eigen::MatrixXd g;
  Eigen::VectorXd m;
  for (uint64_t j = 0; j < 200; ++j) {
    tree.node_noise(0, j, &g, &m);
    for (uint32_t r = 0; r < d; ++r) {
      for (uint32_t c = r; c < d; ++c) {
        ++n;
        sum += g(r, c);
        sq += g(r, c) * g(r, c);
      }
      ++n;
      sum += m(r);
      sq += m(r) * m(r);
    }
  }
  const double mean = sum / n;
  const double sd = std::sqrt(sq / n - mean * mean);
  EXPECT_LT(std::abs(mean), 4.0 * sigma / std::sqrt(n));  // 13,000 draws
  EXPECT_NEAR(sd / sigma, 1.0, 0.03);
}

TEST(TreePrivatizer, TelescopingIncrementsSumToTheLastPrefix) {
  const TreePrivatizer tree(5, 1.7, seed_of(3));
  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(5, 5), now, before;
  Eigen::VectorXd vs = Eigen::VectorXd::Zero(5), vn, vb;
  for (uint64_t k = 1; k <= 37; ++k) {
    tree.prefix_noise(k, &now, &vn);
    tree.prefix_noise(k - 1, &before, &vb);
    sum += now - before;
    vs += vn - vb;
  }
  tree.prefix_noise(37, &now, &vn);
  EXPECT_LT((sum - now).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((vs - vn).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(CdpLedger, ThePlanSpendsExactlyTheBudgetOverTreeAndPhaseReleases) {
  FclubConfig cfg;
  cfg.private_uploads = true;
  cfg.epsilon = 1.0;
  cfg.delta = 0.1;
  cfg.max_uploads_per_phase = 256;
  cfg.max_phases = 17;
  const CdpPlan p = plan_cdp(cfg);
  // ||x||^4 + y^2 ||x||^2 (the released Gram and moment entries) + 1 (the count).
  EXPECT_DOUBLE_EQ(p.sensitivity, std::sqrt(3.0));
  EXPECT_EQ(p.tree_levels, 9U);  // ceil(log2 256) + 1
  // rho per record = (m + P) D^2 / (2 sigma^2), computed here on its own.
  const double rho = (9.0 + 17.0) * 3.0 / (2.0 * p.sigma * p.sigma);
  EXPECT_NEAR(rho, p.rho_budget, 1e-12);
  // rho + 2 sqrt(rho ln(1/delta)) = epsilon at the budget.
  EXPECT_NEAR(rho + 2.0 * std::sqrt(rho * std::log(10.0)), 1.0, 1e-9);
  // Reference values of the zCDP -> (epsilon, delta) conversion.
  EXPECT_NEAR(dp::zcdp_epsilon(0.5, 1e-5), 0.5 + 2.0 * std::sqrt(0.5 * std::log(1e5)), 1e-12);
  EXPECT_NEAR(dp::zcdp_epsilon(0.0899, 0.1), 0.0899 + 2.0 * std::sqrt(0.0899 * std::log(10.0)),
              1e-12);
}

TEST(CdpLedger, ChargesTheWorstRecordAndStopsAtTheBudget) {
  FclubConfig cfg;
  cfg.private_uploads = true;
  cfg.max_uploads_per_phase = 8;  // m = 4
  cfg.max_phases = 3;             // budget: 7 nodes
  CdpLedger l(plan_cdp(cfg));
  EXPECT_TRUE(l.can_start_phase());
  l.on_phase_start();  // phase 1: nothing re-released
  EXPECT_EQ(l.nodes_charged(), 0U);
  for (uint64_t k = 1; k <= 5; ++k) {
    ASSERT_TRUE(l.can_upload(k));
    l.on_upload(k);
  }
  EXPECT_EQ(l.nodes_charged(), 4U);  // leaf 1 sits in 4 released nodes after 5 uploads
  l.on_phase_start();                // + the phase-2 start release
  EXPECT_EQ(l.nodes_charged(), 5U);
  l.on_phase_start();
  l.on_phase_start();
  EXPECT_EQ(l.nodes_charged(), 7U);
  EXPECT_FALSE(l.can_start_phase());  // an 8th node would overspend
  EXPECT_NEAR(l.rho_spent(), l.plan().rho_budget, 1e-12);
  EXPECT_NEAR(l.epsilon_spent(cfg.delta), cfg.epsilon, 1e-9);
}

// Drives a federation over `rounds` rounds; `pick` chooses items via the
// federation, and the reward is a fixed Bernoulli-free function of x.
struct Driven {
  std::vector<uint32_t> actions;
};

Driven drive(const FclubConfig& cfg, const std::vector<uint32_t>& per_server, uint64_t rounds,
             const std::function<void(Federation&, uint64_t)>& after_round = {}) {
  Federation fed(cfg, per_server, seed_of(5));
  std::mt19937_64 rng(11);
  uint32_t users = 0;
  for (uint32_t n : per_server) users += n;
  Driven out;
  Eigen::MatrixXd items(6, cfg.dim);
  for (uint64_t t = 1; t <= rounds; ++t) {
    if (const uint32_t s = Federation::phase_starting_at(t)) fed.start_phase(s);
    const uint32_t user = static_cast<uint32_t>(rng() % users);
    for (int k = 0; k < 6; ++k) items.row(k) = item(rng, cfg.dim).transpose();
    const uint32_t a = fed.recommend(user, items);
    out.actions.push_back(a);
    const Eigen::VectorXd x = items.row(a).transpose();
    fed.observe(user, x, x(0) > 0.0 ? 1.0 : 0.0);
    if (after_round) after_round(fed, t);
  }
  return out;
}

TEST(Federation, WithOneClusterAndEveryRoundSyncItEqualsOneCentralLinUcb) {
  FclubConfig cfg;
  cfg.dim = 5;
  cfg.clustering = Clustering::single_global;
  cfg.upload_ratio = cfg.download_ratio = 1.0;
  const Driven fed = drive(cfg, {3, 4, 2}, 3000);
  // The central model: every user in one LinUCB (a federation of one server
  // and one user group is exactly that).
  FclubConfig central = cfg;
  central.n_servers = 1;
  central.clustering = Clustering::per_server;
  const Driven one = drive(central, {9}, 3000);
  EXPECT_EQ(fed.actions, one.actions);
  // And the delayed variant with U = D = 1 is the same algorithm.
  FclubConfig dc = cfg;
  dc.upload_ratio = dc.download_ratio = 1.0;
  EXPECT_EQ(drive(dc, {3, 4, 2}, 3000).actions, one.actions);
}

TEST(Federation, GlobalSumsEqualTheMembersRawStatisticsAndDownloadsKeepUpWithinD) {
  FclubConfig cfg;
  cfg.dim = 4;
  cfg.clustering = Clustering::single_global;  // a forced, known clustering
  cfg.download_ratio = 1.05;
  double worst_gap = 0.0;
  drive(cfg, {3, 3, 3}, 5000, [&](Federation& fed, uint64_t) {
    const Stats& g = fed.global().cluster_stats(0);
    for (uint32_t s = 0; s < 3; ++s) {
      for (uint32_t c = 0; c < fed.server(s).cluster_count(); ++c) {
        double lg = 0.0, lc = 0.0;
        ASSERT_TRUE(log_det(g.gram, cfg.ridge, &lg));
        ASSERT_TRUE(log_det(fed.server(s).synced(c).gram, cfg.ridge, &lc));
        worst_gap = std::max(worst_gap, lg - lc);
      }
    }
  });
  EXPECT_LT(worst_gap, std::log(1.05) + 1e-12);
  // At the end, the global sum is every user's raw statistics plus nothing.
  Federation fed(cfg, {3, 3, 3}, seed_of(5));
  std::mt19937_64 rng(3);
  Stats raw = Stats::zero(cfg.dim);
  for (uint64_t t = 1; t <= 4000; ++t) {
    if (const uint32_t s = Federation::phase_starting_at(t)) fed.start_phase(s);
    const Eigen::VectorXd x = item(rng, cfg.dim);
    const double y = static_cast<double>(rng() % 2);
    fed.observe(static_cast<uint32_t>(rng() % 9), x, y);
  }
  fed.start_phase(12);  // 4095: the phase-start upload gathers everything
  for (uint32_t s = 0; s < 3; ++s) {
    for (uint32_t u = 0; u < 3; ++u) raw.add(fed.server(s).user_stats(u));
  }
  const Stats& g = fed.global().cluster_stats(0);
  EXPECT_EQ(g.count, 4000U);
  EXPECT_LT((g.gram - raw.gram).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_LT((g.moment - raw.moment).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(Federation, PrivateUploadsCarryRawSumsPlusTheTreeNoiseOfTheLastPrefix) {
  FclubConfig cfg;
  cfg.dim = 4;
  cfg.private_uploads = true;
  cfg.clustering = Clustering::per_server;
  cfg.upload_ratio = 1.02;
  const TreeSeed key = seed_of(4);
  LocalServer local(cfg, 0, 3, key);
  auto starts = local.start_phase(1);
  ASSERT_EQ(starts.size(), 1U);
  std::mt19937_64 rng(8);
  Stats sent = Stats::zero(cfg.dim);
  uint32_t last = 0;
  for (int t = 0; t < 400; ++t) {
    const Eigen::VectorXd x = item(rng, cfg.dim);
    const double y = static_cast<double>(rng() % 2);
    StatsUpload up;
    if (local.observe(static_cast<uint32_t>(rng() % 3), x, y, &up)) {
      EXPECT_EQ(up.seq, last + 1);
      last = up.seq;
      sent.add(up.stats);
      EXPECT_GT(up.epsilon_spent, 0.0);
      EXPECT_LE(up.epsilon_spent, cfg.epsilon + 1e-9);
    }
  }
  ASSERT_GT(last, 2U);
  // The sum of what was sent is the raw sum up to the last upload plus the
  // noise of prefix `last` of this cluster's phase-1 tree.
  Eigen::MatrixXd noise;
  Eigen::VectorXd vnoise;
  TreePrivatizer(cfg.dim, plan_cdp(cfg).sigma, derive_tree_seed(key, 1, 0))
      .prefix_noise(last, &noise, &vnoise);
  Stats rebuilt = sent;
  rebuilt.gram -= noise;
  rebuilt.moment -= vnoise;
  EXPECT_EQ(rebuilt.count, sent.count);
  // Everything the users learned is the rebuilt sum plus what waits in the buffer.
  Stats users = Stats::zero(cfg.dim);
  for (uint32_t u = 0; u < 3; ++u) users.add(local.user_stats(u));
  EXPECT_LE(sent.count, users.count);
  const Eigen::MatrixXd diff = users.gram - rebuilt.gram;
  // The remainder is a PSD sum of the unsent interactions (never negative on the diagonal).
  EXPECT_GT(diff.diagonal().minCoeff(), -1e-9);
  EXPECT_LT(diff.trace(), static_cast<double>(users.count - sent.count) + 1e-9);
}

TEST(Federation, APrivateServerClipsWhatTheSensitivityBoundDoesNotCover) {
  FclubConfig cfg;
  cfg.dim = 3;
  cfg.private_uploads = true;
  LocalServer local(cfg, 0, 2, seed_of(2));
  local.start_phase(1);
  Eigen::VectorXd x(3);
  x << 3.0, 4.0, 0.0;  // norm 5
  StatsUpload up;
  local.observe(0, x, 7.0, &up);
  const Stats& s = local.user_stats(0);
  EXPECT_NEAR(s.gram.trace(), 1.0, 1e-12);   // x scaled to norm 1
  EXPECT_NEAR(s.moment.norm(), 1.0, 1e-12);  // y clamped to 1
  EXPECT_TRUE(within_sensitivity(cfg, s.moment.data(), 3, 1.0));
  EXPECT_FALSE(within_sensitivity(cfg, x.data(), 3, 1.0));
  EXPECT_FALSE(within_sensitivity(cfg, s.moment.data(), 3, -0.1));
  // Not private: nothing to protect, the data stay as they are.
  FclubConfig open = cfg;
  open.private_uploads = false;
  LocalServer raw(open, 0, 2, seed_of(2));
  raw.observe(0, x, 7.0, &up);
  EXPECT_NEAR(raw.user_stats(0).gram.trace(), 25.0, 1e-12);
}

TEST(Federation, BadDownloadsAreRefusedAndChangeNothing) {
  FclubConfig cfg;
  cfg.dim = 3;
  LocalServer local(cfg, 2, 4, seed_of(1));
  local.start_phase(1);
  StatsDownload d;
  d.server = 1;  // someone else's
  d.phase = 1;
  d.stats = Stats::zero(3);
  d.stats.count = 5;
  EXPECT_FALSE(local.apply(d));
  d.server = 2;
  d.phase = 2;  // another phase
  EXPECT_FALSE(local.apply(d));
  d.phase = 1;
  d.local_cluster = 9;  // no such cluster
  EXPECT_FALSE(local.apply(d));
  EXPECT_EQ(local.synced(0).count, 0U);
  GlobalServer global(cfg);
  std::vector<StatsDownload> downs;
  StatsUpload up;
  up.server = 7;
  up.phase = 1;
  up.seq = 1;
  up.stats = Stats::zero(3);
  EXPECT_FALSE(global.receive(up, &downs));  // from no known member
  EXPECT_TRUE(downs.empty());
}

TEST(FclubConfig, RejectsWhatCannotWork) {
  FclubConfig c;
  EXPECT_EQ(check_config(c), nullptr);
  c.dim = 0;
  EXPECT_NE(check_config(c), nullptr);
  c = FclubConfig{};
  c.private_uploads = true;
  c.upload_ratio = 1.0;  // every-round uploads would exhaust any tree
  EXPECT_NE(check_config(c), nullptr);
  c = FclubConfig{};
  c.private_uploads = true;
  c.delta = 1.5;
  EXPECT_NE(check_config(c), nullptr);
}

}  // namespace
}  // namespace p2b::fclub
