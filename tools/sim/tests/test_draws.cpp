// The simulator's generator (xoshiro256++ seeded by SplitMix64), its Gaussian (a 256-layer
// ziggurat, sim/draws.hpp) and the synthetic environment's one-pass step: the layers are the
// equal-area layers of the normal curve, the draws follow N(0, 1) (moments, tail mass and a
// Kolmogorov-Smirnov test at a fixed seed), the batched and the single draws are one stream, and a
// step's best action is its top logit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "sim/draws.hpp"
#include "sim/environment.hpp"
#include "sim/synthetic_env.hpp"
#include "sim/xoshiro256.hpp"

namespace {

using p2b::sim::Draws;
using p2b::sim::ZigguratLayers;

constexpr double kV = ZigguratLayers::kLayerArea;
constexpr double kR = ZigguratLayers::kTailStart;

double normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

TEST(Xoshiro256, MatchesTheReferenceAlgorithm) {
  // Seed 1's first outputs, from a transcription of Vigna's reference C code
  // (splitmix64.c, xoshiro256plusplus.c) into Python integers.
  p2b::sim::Xoshiro256 g(1);
  EXPECT_EQ(g(), 0xcfc5d07f6f03c29bULL);
  EXPECT_EQ(g(), 0xbf424132963fe08dULL);
  EXPECT_EQ(g(), 0x19a37d5757aaf520ULL);
}

TEST(Ziggurat, EveryLayerHasTheSameArea) {
  const ZigguratLayers& z = p2b::sim::ziggurat_layers();
  EXPECT_EQ(z.x[1], kR);
  EXPECT_EQ(z.x[ZigguratLayers::kLayers], 0.0);
  for (int i = 1; i < ZigguratLayers::kLayers; ++i) {
    EXPECT_GT(z.x[i], z.x[i + 1]) << "layer " << i;
    EXPECT_NEAR(z.x[i] * (z.f[i + 1] - z.f[i]) / kV, 1.0, 1e-6) << "layer " << i;
  }
  // The base layer: its rectangle up to r plus the tail beyond r, which is
  // sqrt(pi / 2) erfc(r / sqrt(2)) under the unnormalised curve.
  const double tail = std::sqrt(M_PI / 2) * std::erfc(kR / std::sqrt(2.0));
  EXPECT_NEAR((kR * z.f[1] + tail) / kV, 1.0, 1e-6);
  EXPECT_NEAR(z.x[0] * z.f[1] / kV, 1.0, 1e-12);
}

std::vector<double> draw(uint64_t seed, std::size_t n) {
  Draws d(seed);
  std::vector<double> v(n);
  for (double& g : v) g = d.gaussian();
  return v;
}

TEST(Ziggurat, FollowsTheStandardNormal) {
  const std::size_t n = std::size_t{1} << 20;
  std::vector<double> v = draw(7, n);
  double sum = 0, sq = 0;
  std::size_t beyond_r = 0;
  for (const double g : v) {
    sum += g;
    sq += g * g;
    beyond_r += std::fabs(g) > kR ? 1 : 0;
  }
  const double mean = sum / n;
  const double var = sq / n - mean * mean;
  // Five standard errors: the mean's is 1 / sqrt(n), the variance's sqrt(2 / n).
  EXPECT_LT(std::fabs(mean), 5.0 / std::sqrt(n));
  EXPECT_LT(std::fabs(var - 1.0), 5.0 * std::sqrt(2.0 / n));
  // The tail path: |z| > r has mass 2 (1 - Phi(r)), about 2.6e-4.
  const double expected = 2.0 * (1.0 - normal_cdf(kR)) * n;
  EXPECT_LT(std::fabs(static_cast<double>(beyond_r) - expected), 5.0 * std::sqrt(expected));
  // Kolmogorov-Smirnov: sqrt(n) D stays under 1.95 (p = 0.001) for N(0, 1).
  std::sort(v.begin(), v.end());
  double d = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double f = normal_cdf(v[i]);
    d = std::max({d, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
  }
  EXPECT_LT(std::sqrt(static_cast<double>(n)) * d, 1.95);
}

TEST(Ziggurat, BatchedDrawsAreTheSingleDrawsInOrder) {
  Draws batched(3);
  std::vector<double> got(1000);
  batched.gaussians(got.data(), static_cast<uint32_t>(got.size()));
  EXPECT_EQ(got, draw(3, got.size()));
  EXPECT_NE(draw(3, 10), draw(4, 10));
}

TEST(SyntheticStep, BestActionIsTheTopLogitAndTheStepRepeats) {
  p2b::sim::EnvParams p;
  p.dim = 3;
  p.n_actions = 4;
  p.mapping = p2b::sim::Mapping::softmax;
  // Arm a's logit is 2 x_a (arm 3 has none): the largest coordinate wins.
  const std::vector<double> w = {2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0};
  const p2b::sim::SyntheticEnvironment env(p2b::sim::SyntheticEnv(p, w, {0, 0, 0, 0}));
  const float x[3] = {0.2F, 0.5F, 0.3F};
  EXPECT_EQ(env.best_action(x, nullptr), 1U);
  // step_and_best gives what step then best_action give, from the same draws.
  Draws a(11), b(11);
  float xa[3], xb[3];
  double pa[4], pb[4];
  for (int s = 0; s < 50; ++s) {
    const uint32_t best = env.step_and_best(0, s, a, xa, pa);
    env.step(0, s, b, xb, pb);
    ASSERT_EQ(best, env.best_action(xb, pb));
    ASSERT_TRUE(std::equal(xa, xa + 3, xb));
    ASSERT_TRUE(std::equal(pa, pa + 4, pb));
  }
}

TEST(SyntheticStep, RefusesMoreActionsThanTheScratchHolds) {
  p2b::sim::EnvParams p;
  p.dim = 1;
  p.n_actions = p2b::sim::kMaxActions + 1;
  EXPECT_THROW(
      p2b::sim::SyntheticEnv(p, std::vector<double>(p.n_actions), std::vector<double>(p.n_actions)),
      std::invalid_argument);
}

}  // namespace
