// Linear Thompson sampling: reproducible under a seed, and its parameter draws
// follow N(theta_a, v^2 A_a^-1).
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include <Eigen/Dense>

#include "p2b/agent.hpp"
#include "random.hpp"
#include "test_support.hpp"

namespace {

p2b_config lints_config(uint32_t d, uint32_t k_arms, uint64_t seed) {
  p2b_config cfg = p2b_test::base_config(d, k_arms, 32, seed);
  cfg.policy = P2B_POLICY_LINTS;
  cfg.ts_scale = 0.5;
  return cfg;
}

std::vector<uint32_t> run_actions(p2b_agent* agent, uint32_t d, int n, uint64_t env_seed) {
  std::mt19937_64 env(env_seed);
  std::vector<uint32_t> actions;
  for (int i = 0; i < n; ++i) {
    const std::vector<float> x = p2b_test::simplex_point(env, d);
    uint32_t a = 0;
    uint64_t id = 0;
    EXPECT_EQ(p2b_agent_decide(agent, x.data(), d, &a, &id), P2B_OK);
    EXPECT_EQ(p2b_agent_reward(agent, id, (a % 3 == 0) ? 1.0F : 0.0F), P2B_OK);
    actions.push_back(a);
  }
  return actions;
}

TEST(LinTS, SameSeedGivesSameActions) {
  auto a = p2b_test::make_agent(lints_config(8, 6, 99));
  auto b = p2b_test::make_agent(lints_config(8, 6, 99));
  const auto seq_a = run_actions(a.agent, 8, 3000, 1);
  const auto seq_b = run_actions(b.agent, 8, 3000, 1);
  EXPECT_EQ(seq_a, seq_b);
}

TEST(LinTS, DifferentSeedsGiveDifferentActions) {
  auto a = p2b_test::make_agent(lints_config(8, 6, 99));
  auto b = p2b_test::make_agent(lints_config(8, 6, 100));
  EXPECT_NE(run_actions(a.agent, 8, 500, 1), run_actions(b.agent, 8, 500, 1));
}

TEST(LinTS, ParameterDrawsMatchPosteriorMeanAndCovariance) {
  const uint32_t d = 5;
  const uint32_t k_arms = 2;
  p2b_config cfg = lints_config(d, k_arms, 3);
  auto t = p2b_test::make_agent(cfg);
  // Give arm 0 a non-trivial posterior.
  std::mt19937_64 env(11);
  for (int i = 0; i < 200; ++i) {
    const std::vector<float> x = p2b_test::simplex_point(env, d);
    ASSERT_EQ(p2b_agent_learn(t.agent, x.data(), d, 0, (i % 4 == 0) ? 1.0F : 0.0F), P2B_OK);
  }
  std::vector<double> a_all(k_arms * d * d), b_all(k_arms * d);
  ASSERT_EQ(p2b_agent_export(t.agent, a_all.data(), b_all.data(), k_arms, d), P2B_OK);
  const Eigen::Map<const Eigen::MatrixXd> a0(a_all.data(), d, d);
  const Eigen::Map<const Eigen::VectorXd> b0(b_all.data(), d);
  const Eigen::VectorXd theta = a0.ldlt().solve(b0);
  const Eigen::MatrixXd cov = cfg.ts_scale * cfg.ts_scale * a0.inverse();

  auto* agent = reinterpret_cast<p2b::Agent*>(t.agent);
  const int n = 40000;
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(d);
  Eigen::MatrixXd outer = Eigen::MatrixXd::Zero(d, d);
  std::vector<p2b::real> mu(d);
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(agent->sample_parameters(0, mu.data(), d), p2b::Status::ok);
    Eigen::VectorXd m(d);
    for (uint32_t j = 0; j < d; ++j) m[j] = static_cast<double>(mu[j]);
    sum += m;
    outer += m * m.transpose();
  }
  const Eigen::VectorXd mean = sum / n;
  const Eigen::MatrixXd sample_cov = outer / n - mean * mean.transpose();
  for (uint32_t i = 0; i < d; ++i) {
    // 5 standard errors of the sample mean.
    EXPECT_NEAR(mean[i], theta[i], 5.0 * std::sqrt(cov(i, i) / n)) << "component " << i;
    for (uint32_t j = 0; j < d; ++j) {
      // Standard error of a sample covariance of Gaussians.
      const double se = std::sqrt((cov(i, i) * cov(j, j) + cov(i, j) * cov(i, j)) / n);
      EXPECT_NEAR(sample_cov(i, j), cov(i, j), 6.0 * se) << "entry " << i << "," << j;
    }
  }
}

TEST(LinTS, GaussianDrawsHaveUnitMomentsAndSymmetry) {
  p2b::Rng rng;
  rng.init_seeded(5);
  const int n = 200000;
  double s1 = 0, s2 = 0, s3 = 0, s4 = 0;
  int within_one = 0;
  for (int i = 0; i < n; ++i) {
    double g = 0;
    ASSERT_EQ(rng.gaussian(&g), p2b::Status::ok);
    s1 += g;
    s2 += g * g;
    s3 += g * g * g;
    s4 += g * g * g * g;
    within_one += std::fabs(g) < 1.0 ? 1 : 0;
  }
  EXPECT_NEAR(s1 / n, 0.0, 5.0 / std::sqrt(n));
  EXPECT_NEAR(s2 / n, 1.0, 5.0 * std::sqrt(2.0 / n));
  EXPECT_NEAR(s3 / n, 0.0, 5.0 * std::sqrt(15.0 / n));
  EXPECT_NEAR(s4 / n, 3.0, 5.0 * std::sqrt(96.0 / n));
  // P(|Z| < 1) = 0.682689...
  EXPECT_NEAR(static_cast<double>(within_one) / n, 0.682689, 5.0 * std::sqrt(0.2166 / n));
}

}  // namespace

namespace {

// A random source that works for `budget` bytes, then fails.
struct FlakySource {
  size_t budget;
};
int flaky_fill(void* ctx, uint8_t* out, size_t len) {
  auto* src = static_cast<FlakySource*>(ctx);
  if (src->budget < len) return -1;
  src->budget -= len;
  for (size_t i = 0; i < len; ++i) out[i] = static_cast<uint8_t>(src->budget * 31 + i);
  return 0;
}

TEST(LinTS, RandomSourceFailingMidDecisionLeavesAgentUnchanged) {
  // A decision needs K*d = 24 Gaussians, at least 11 polar pairs of 16 bytes each.
  for (size_t budget = 8; budget < 176; budget += 8) {
    FlakySource src{1 << 20};
    p2b_config cfg = lints_config(6, 4, 0);
    cfg.rng_mode = P2B_RNG_SYSTEM;
    cfg.random = flaky_fill;
    cfg.random_ctx = &src;
    auto t = p2b_test::make_agent(cfg);
    const float x[6] = {1, 2, 3, 4, 5, 6};
    uint32_t a = 0;
    uint64_t id = 0;
    ASSERT_EQ(p2b_agent_decide(t.agent, x, 6, &a, &id), P2B_OK);  // leaves a cached Gaussian
    const std::vector<uint8_t> before = p2b_test::saved(t.agent);
    src.budget = budget;  // runs dry somewhere inside the next decision's K*d draws
    EXPECT_EQ(p2b_agent_decide(t.agent, x, 6, &a, &id), P2B_ERR_RANDOM_FAILURE) << budget;
    EXPECT_EQ(p2b_test::saved(t.agent), before) << budget;
  }
}

}  // namespace

// A saved generator state that restore must refuse: the seeded all-zero
// state is xoshiro's fixed point (every draw 0, so the Gaussian's rejection
// loop never ends: fuzz_cmab_state found it as a timeout), and a cached
// Gaussian that is not finite. A real generator's state passes.
TEST(LinTS, GeneratorStatesThatCannotOccurAreNotRestorable) {
  p2b::Rng rng;
  rng.init_seeded(3);
  double g = 0.0;
  ASSERT_EQ(rng.gaussian(&g), p2b::Status::ok);  // leaves a spare cached
  const p2b::Rng::State real = rng.state();
  ASSERT_EQ(real.has_spare, 1U);
  EXPECT_TRUE(p2b::Rng::restorable(real));

  p2b::Rng::State zero = real;
  zero.s[0] = zero.s[1] = zero.s[2] = zero.s[3] = 0;
  EXPECT_FALSE(p2b::Rng::restorable(zero));
  zero.deterministic = 0;  // a CSPRNG-backed generator never reads s
  EXPECT_TRUE(p2b::Rng::restorable(zero));

  p2b::Rng::State spare = real;
  const double inf = std::numeric_limits<double>::infinity();
  std::memcpy(&spare.spare_bits, &inf, sizeof inf);
  EXPECT_FALSE(p2b::Rng::restorable(spare));
  spare.has_spare = 0;  // an unused spare's bits do not matter
  EXPECT_TRUE(p2b::Rng::restorable(spare));
  spare.has_spare = 2;
  EXPECT_FALSE(p2b::Rng::restorable(spare));
}
