// What a private FCLUB deployment lets out of a local server (docs/fclub.md,
// "Privacy"): an upload schedule that does not read the data, counts only
// through the mechanism, a ledger per user that charges each release once
// and stops, and a merge test on noisy statistics that noise cannot fool.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "fclub/cdp_ledger.hpp"
#include "fclub/federation.hpp"
#include "fclub/merge_test.hpp"
#include "fclub/tree_privatizer.hpp"
#include "fclub_test_support.hpp"

namespace p2b::fclub {
namespace {

using test_support::item;
using test_support::seed_of;

FclubConfig private_config(uint32_t dim) {
  FclubConfig cfg;
  cfg.dim = dim;
  cfg.n_servers = 1;
  cfg.private_uploads = true;
  cfg.max_uploads_per_phase = 16;
  cfg.max_phases = 12;
  return cfg;
}

// One local server over `rounds` rounds: the users arrive in the order
// `arrivals` draws (the same for every call with the same arrival seed);
// items and rewards come from `data_seed`. Returns, per round, the upload's
// (local cluster + 1) or 0, and every message sent.
struct LocalRun {
  std::vector<uint32_t> schedule;
  std::vector<StatsUpload> sent;
};

LocalRun run_local(const FclubConfig& cfg, uint32_t users, uint64_t rounds, uint64_t data_seed) {
  LocalServer local(cfg, 0, users, seed_of(3));
  std::mt19937_64 arrivals(99);
  std::mt19937_64 data(data_seed);
  Eigen::MatrixXd items(5, cfg.dim);
  LocalRun out;
  for (uint64_t t = 1; t <= rounds; ++t) {
    if (const uint32_t s = Federation::phase_starting_at(t)) {
      for (StatsUpload& up : local.start_phase(s)) out.sent.push_back(std::move(up));
    }
    const auto user = static_cast<uint32_t>(arrivals() % users);
    for (int k = 0; k < 5; ++k) items.row(k) = item(data, cfg.dim).transpose();
    const Eigen::VectorXd x = items.row(local.recommend(user, items)).transpose();
    StatsUpload up;
    const bool sent = local.observe(user, x, static_cast<double>(data() % 2), &up);
    out.schedule.push_back(sent ? up.local_cluster + 1 : 0);
    if (sent) out.sent.push_back(std::move(up));
  }
  return out;
}

uint64_t uploads_in(const std::vector<uint32_t>& schedule) {
  uint64_t n = 0;
  for (const uint32_t s : schedule) n += s != 0 ? 1 : 0;
  return n;
}

TEST(PrivateTrigger, TheUploadScheduleIsTheSameForTwoDifferentRewardStreams) {
  const FclubConfig cfg = private_config(4);
  const LocalRun a = run_local(cfg, 6, 4000, 1);
  const LocalRun b = run_local(cfg, 6, 4000, 2);
  std::vector<bool> when_a, when_b;
  for (const uint32_t s : a.schedule) when_a.push_back(s != 0);
  for (const uint32_t s : b.schedule) when_b.push_back(s != 0);
  EXPECT_EQ(when_a, when_b);
  EXPECT_GT(uploads_in(a.schedule), 50U);
  // The determinant trigger (Eq. 5) of a deployment without privacy, on the
  // same two streams, does not keep one schedule: the comparison above can
  // tell a data-dependent trigger.
  FclubConfig open = cfg;
  open.private_uploads = false;
  const LocalRun c = run_local(open, 6, 4000, 1);
  const LocalRun d = run_local(open, 6, 4000, 2);
  std::vector<bool> when_c, when_d;
  for (const uint32_t s : c.schedule) when_c.push_back(s != 0);
  for (const uint32_t s : d.schedule) when_d.push_back(s != 0);
  EXPECT_NE(when_c, when_d);
}

TEST(PrivateTrigger, AServerTicksAtMostTheTreesLeavesAPhase) {
  FclubConfig cfg = private_config(3);
  cfg.n_servers = 1;
  for (uint32_t phase = 1; phase < 20; ++phase) {
    const uint64_t every = private_upload_interval(cfg, phase);
    EXPECT_GE(every, 1U);
    // A phase of 2^s rounds, all at this server, holds at most 2^s / every
    // ticks; the interval keeps that near the tree's leaves (the local also
    // stops at the cap, whatever the arrivals).
    EXPECT_LE(std::ldexp(1.0, static_cast<int>(phase)) / static_cast<double>(every),
              2.0 * cfg.max_uploads_per_phase);
  }
  const LocalRun r = run_local(cfg, 4, (uint64_t{1} << 11) - 1, 5);
  // Phases 1..10 here; no cluster gets a seq beyond the tree's leaves.
  for (const StatsUpload& up : r.sent) EXPECT_LE(up.seq, cfg.max_uploads_per_phase);
}

TEST(PrivateRelease, NothingRawLeavesAPrivateServer) {
  const FclubConfig cfg = private_config(4);
  const uint32_t users = 6;
  const LocalRun r = run_local(cfg, users, 3000, 7);
  uint64_t phase_starts = 0;
  uint64_t increments = 0;
  for (const StatsUpload& up : r.sent) {
    EXPECT_EQ(up.members, 0U) << "cluster sizes are membership";
    EXPECT_TRUE(up.stats.gram.allFinite());
    if (up.seq == 0) {
      ++phase_starts;
      continue;
    }
    ++increments;
    EXPECT_EQ(up.stats.count, 0U) << "an increment's count would be raw";
  }
  EXPECT_GT(phase_starts, 5U);
  EXPECT_GT(increments, 50U);
  // A phase-start upload's count is the raw count plus the count slot of the
  // phase-start tree's node, rounded: rebuild both from a server whose
  // inputs we replay, and compare.
  LocalServer local(cfg, 0, users, seed_of(3));
  std::mt19937_64 arrivals(99);
  std::mt19937_64 data(7);
  Eigen::MatrixXd items(5, cfg.dim);
  uint64_t noisy_counts_differ = 0;
  const double sigma = plan_cdp(cfg).sigma;
  for (uint64_t t = 1; t <= 3000; ++t) {
    if (const uint32_t s = Federation::phase_starting_at(t)) {
      for (const StatsUpload& up : local.start_phase(s)) {
        Stats raw = Stats::zero(cfg.dim);
        for (uint32_t u = 0; u < users; ++u) {
          if (local.cluster_of(u) == up.local_cluster) raw.add(local.user_stats(u));
        }
        const TreeSeed tree =
            derive_tree_seed(seed_of(3), s, (uint64_t{1} << 63) | up.local_cluster);
        const double noise = TreePrivatizer(cfg.dim, sigma, tree).prefix_count_noise(1);
        EXPECT_EQ(up.stats.count, noisy_count(raw.count, noise));
        EXPECT_GT((up.stats.gram - raw.gram).cwiseAbs().maxCoeff(), sigma / 100.0);
        noisy_counts_differ += up.stats.count != raw.count ? 1 : 0;
      }
    }
    const auto user = static_cast<uint32_t>(arrivals() % users);
    for (int k = 0; k < 5; ++k) items.row(k) = item(data, cfg.dim).transpose();
    const Eigen::VectorXd x = items.row(local.recommend(user, items)).transpose();
    StatsUpload up;
    local.observe(user, x, static_cast<double>(data() % 2), &up);
  }
  EXPECT_GT(noisy_counts_differ, 0U);
}

TEST(PrivateRelease, TheCountSlotIsTheNodesLastDiagonalEntry) {
  const TreePrivatizer tree(3, 2.0, seed_of(4));
  // Prefix 6 = nodes (level 2, index 0) + (level 1, index 2): their count
  // noise adds up like the Gram noise does.
  const double c6 = tree.prefix_count_noise(6);
  const double c4 = tree.prefix_count_noise(4);
  EXPECT_NE(c6, c4);
  EXPECT_EQ(tree.prefix_count_noise(0), 0.0);
  EXPECT_EQ(noisy_count(10, -20.4), 0U);  // floored at zero
  EXPECT_EQ(noisy_count(10, 2.6), 13U);   // rounded
  // Unit-variance draws scaled by sigma: over many nodes the deviation is sigma.
  double sq = 0.0;
  const int n = 2000;
  for (int i = 1; i <= n; ++i) {
    const TreePrivatizer one(3, 2.0, derive_tree_seed(seed_of(4), static_cast<uint32_t>(i), 0));
    const double v = one.prefix_count_noise(1);
    sq += v * v;
  }
  EXPECT_NEAR(std::sqrt(sq / n), 2.0, 0.1);
}

TEST(UserLedgers, ChargeEachReleaseOnceAndRefuseWhenSpent) {
  FclubConfig cfg = private_config(3);
  cfg.max_uploads_per_phase = 4;  // m = 3
  cfg.max_phases = 1;             // budget: 4 nodes
  UserLedgers l(plan_cdp(cfg), 3);
  const std::vector<uint32_t> both{0, 1};
  const std::vector<uint32_t> third{2};
  ASSERT_TRUE(l.can_release(both));
  l.on_release(both);
  l.on_release(third);
  for (uint64_t k = 1; k <= 4; ++k) {
    ASSERT_TRUE(l.can_upload(both, k));
    l.on_upload(both, k);
  }
  EXPECT_EQ(l.user(0).nodes_charged(), 3U);  // a leaf of a 4-leaf tree sits in 3 nodes
  // The same release recorded again costs nothing more.
  l.on_upload(both, 4);
  EXPECT_EQ(l.user(0).nodes_charged(), 3U);
  // User 2's cluster never uploaded in-phase: it is not charged their tree.
  EXPECT_EQ(l.user(2).nodes_charged(), 0U);
  EXPECT_EQ(l.worst().nodes_charged(), 3U);
  l.on_release(both);  // a phase-start re-release: one more node each
  EXPECT_EQ(l.user(1).nodes_charged(), 4U);
  EXPECT_NEAR(l.worst().epsilon_spent(cfg.delta), cfg.epsilon, 1e-9);
  // Spent: users 0 and 1 may not go out again, and take any cluster with them.
  EXPECT_FALSE(l.can_release(both));
  EXPECT_FALSE(l.can_release({1, 2}));
  EXPECT_TRUE(l.can_release(third));
}

TEST(UserLedgers, ASpentServerSendsNothingMore) {
  FclubConfig cfg = private_config(3);
  cfg.max_uploads_per_phase = 2;  // m = 2
  cfg.max_phases = 1;             // budget: 3 nodes, phases 1 and 2 only
  const LocalRun r = run_local(cfg, 2, 200, 4);
  uint32_t last_phase = 0;
  for (const StatsUpload& up : r.sent) last_phase = std::max(last_phase, up.phase);
  EXPECT_EQ(last_phase, 2U);  // phases 3.. would overspend: nothing goes out
  for (const StatsUpload& up : r.sent) {
    EXPECT_LE(up.epsilon_spent, cfg.epsilon + 1e-9);
  }
}

TEST(UserLedgers, InfiniteEpsilonIsTheNoiseFreePathAndSaysSo) {
  FclubConfig cfg = private_config(3);
  cfg.epsilon = INFINITY;
  ASSERT_EQ(check_config(cfg), nullptr);
  const CdpPlan p = plan_cdp(cfg);
  EXPECT_EQ(p.sigma, 0.0);
  const LocalRun r = run_local(cfg, 3, 300, 2);
  ASSERT_FALSE(r.sent.empty());
  EXPECT_TRUE(std::isinf(r.sent.back().epsilon_spent));
}

// Stats of n interactions of one user with preference theta.
Stats sample(const Eigen::VectorXd& theta, uint64_t n, std::mt19937_64& rng) {
  Stats s = Stats::zero(static_cast<uint32_t>(theta.size()));
  std::uniform_real_distribution<double> coin;
  for (uint64_t i = 0; i < n; ++i) {
    const Eigen::VectorXd x = item(rng, static_cast<uint32_t>(theta.size()));
    s.add_interaction(x, coin(rng) < x.dot(theta) ? 1.0 : 0.0);
  }
  return s;
}

// Adds one node of N(0, sigma^2) noise to the released entries.
Stats privatize(const Stats& s, double sigma, uint32_t index) {
  const auto d = static_cast<uint32_t>(s.moment.size());
  const TreePrivatizer tree(d, sigma, derive_tree_seed(seed_of(8), index, 0));
  Stats out = s;
  Eigen::MatrixXd g;
  Eigen::VectorXd m;
  tree.prefix_noise(1, &g, &m);
  out.gram += g;
  out.moment += m;
  out.count = noisy_count(s.count, tree.prefix_count_noise(1));
  return out;
}

TEST(NoisyMerge, TheNoiseBoundHoldsAndRawStatisticsGiveEq4) {
  const uint32_t d = 4;
  FclubConfig cfg;
  cfg.dim = d;
  std::mt19937_64 rng(17);
  Eigen::VectorXd theta(d);
  theta << 0.3, -0.2, 0.1, 1.0 / std::sqrt(2.0);
  const double sigma = 3.0;
  const NoiseNorms norms = noise_norms(d, sigma, 1, cfg.merge_noise_delta);
  int outside = 0;
  const int trials = 300;
  for (int i = 0; i < trials; ++i) {
    const Stats raw = sample(theta, 400, rng);
    const MergeView exact = merge_view(raw, cfg, NoiseNorms{});
    EXPECT_EQ(exact.noise, 0.0);
    EXPECT_LT((exact.theta - ridge_estimate(raw, cfg.estimate_ridge)).norm(), 1e-12);
    const MergeView noisy = merge_view(privatize(raw, sigma, static_cast<uint32_t>(i)), cfg, norms);
    // The shifted estimate's distance to the raw ridge estimate is within
    // its bound, but for the 1 % (x 2 norms) the concentration allows.
    outside += (noisy.theta - exact.theta).norm() > noisy.noise ? 1 : 0;
  }
  EXPECT_LE(outside, trials * 2 * 2 / 100);  // 2 % expected at most; twice that as margin
}

TEST(NoisyMerge, NoiseNeitherSplitsTheSameNorJoinsEverything) {
  const uint32_t d = 4;
  FclubConfig cfg;
  cfg.dim = d;
  std::mt19937_64 rng(23);
  Eigen::VectorXd a(d), b(d);
  a << 0.5, 0.0, 0.0, 0.5;
  b << -0.5, 0.0, 0.0, 0.5;
  const Stats a1 = sample(a, 20000, rng), a2 = sample(a, 20000, rng), b1 = sample(b, 20000, rng);
  // Small noise: the same theta joins, a different one does not.
  const NoiseNorms small = noise_norms(d, 0.5, 1, cfg.merge_noise_delta);
  const MergeView va1 = merge_view(privatize(a1, 0.5, 1), cfg, small);
  const MergeView va2 = merge_view(privatize(a2, 0.5, 2), cfg, small);
  const MergeView vb1 = merge_view(privatize(b1, 0.5, 3), cfg, small);
  EXPECT_TRUE(merge_close(va1, va2, cfg.merge_alpha, 0.0));
  EXPECT_FALSE(merge_close(va1, vb1, cfg.merge_alpha, 0.0));
  // Noise far beyond the sampling radius: nobody joins, where a radius
  // widened without limit would join everything (the Homo failure).
  const NoiseNorms huge = noise_norms(d, 400.0, 1, cfg.merge_noise_delta);
  const MergeView ha1 = merge_view(privatize(a1, 400.0, 1), cfg, huge);
  const MergeView hb1 = merge_view(privatize(b1, 400.0, 3), cfg, huge);
  EXPECT_GT(ha1.noise + hb1.noise, cfg.merge_alpha * (ha1.radius + hb1.radius));
  EXPECT_FALSE(merge_close(ha1, hb1, cfg.merge_alpha, 0.0));
  EXPECT_LT((ha1.theta - hb1.theta).norm(), ha1.noise + hb1.noise);
}

// A small world run end to end: 3 servers of 3 users, each server one theta
// (seed 001's layout), d = 4, 6 items a round, Bernoulli rewards. Returns
// the cumulative regret; `eps` <= 0 runs FCLUB-DC without privacy.
struct WorldRun {
  double regret = 0.0;
  double epsilon_spent = 0.0;
};

WorldRun run_world(double eps, uint64_t rounds) {
  FclubConfig cfg;
  cfg.dim = 4;
  cfg.n_servers = 3;
  if (eps > 0.0) {
    cfg.private_uploads = true;
    cfg.epsilon = eps;
    cfg.max_phases = 13;  // ceil(log2(rounds + 1)) for 4,000 rounds
  }
  Federation fed(cfg, {3, 3, 3}, seed_of(6));
  std::vector<Eigen::VectorXd> theta(3, Eigen::VectorXd(4));
  theta[0] << 0.5, 0.0, 0.0, 0.5;
  theta[1] << -0.25, 0.43, 0.0, 0.5;
  theta[2] << -0.25, -0.43, 0.0, 0.5;
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> coin;
  Eigen::MatrixXd items(6, 4);
  WorldRun out;
  for (uint64_t t = 1; t <= rounds; ++t) {
    if (const uint32_t s = Federation::phase_starting_at(t)) fed.start_phase(s);
    const auto user = static_cast<uint32_t>(rng() % 9);
    const Eigen::VectorXd& th = theta[user / 3];
    for (int k = 0; k < 6; ++k) items.row(k) = item(rng, 4).transpose();
    const Eigen::VectorXd x = items.row(fed.recommend(user, items)).transpose();
    out.regret += (items * th).maxCoeff() - x.dot(th);
    fed.observe(user, x, coin(rng) < x.dot(th) ? 1.0 : 0.0);
  }
  out.epsilon_spent = fed.epsilon_spent();
  return out;
}

// Measured here (docs/results.md, FCLUB): in seed 001's layout every cross-
// server merge is a wrong one, and a sound merge test on noisy statistics
// passes none at epsilon <= 8, so the private run is the same at epsilon =
// 0.5 and 8 to the bit and below FCLUB-DC, whose early wrong merges cost it.
// Regret does not fall with epsilon here; this pins why.
TEST(PrivateWorld, NoNoisyMergePassesSoEpsilonDoesNotMoveRegretAndFclubDcIsAbove) {
  const WorldRun low = run_world(0.5, 4000);
  const WorldRun high = run_world(8.0, 4000);
  const WorldRun open = run_world(0.0, 4000);
  EXPECT_EQ(low.regret, high.regret);
  // Each spends within its own budget (0.36 and 5.6 measured: the worst
  // record's tree never reached the planned depth).
  EXPECT_GT(low.epsilon_spent, 0.0);
  EXPECT_LE(low.epsilon_spent, 0.5 + 1e-9);
  EXPECT_GT(high.epsilon_spent, low.epsilon_spent);
  EXPECT_LE(high.epsilon_spent, 8.0 + 1e-9);
  std::printf("[ figures  ] regret at epsilon 0.5: %.1f, at 8: %.1f, FCLUB-DC: %.1f\n", low.regret,
              high.regret, open.regret);
  // Measured 30.7 against FCLUB-DC's 141.8; the goal's 1.5x leaves a wide margin.
  EXPECT_LT(high.regret, 1.5 * open.regret);
}

}  // namespace
}  // namespace p2b::fclub
