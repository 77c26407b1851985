// Context encoder: normalisation, sum-preserving rounding, nearest centroid.
#include <gtest/gtest.h>

#include "encoder.hpp"
#include "test_support.hpp"

namespace {

using p2b::real;

std::vector<real> normalised(const std::vector<float>& x) {
  std::vector<real> out(x.size());
  p2b::normalise_context(x.data(), static_cast<uint32_t>(x.size()), out.data());
  return out;
}

TEST(Encoder, RoundedUnitsAlwaysSumToTenPowQ) {
  std::mt19937_64 rng(1);
  for (uint32_t q = 1; q <= 6; ++q) {
    const uint32_t units = p2b::pow10_u32(q);
    for (int trial = 0; trial < 2000; ++trial) {
      const uint32_t d = 1 + static_cast<uint32_t>(rng() % p2b::kMaxDim);
      std::vector<float> x(d);
      for (auto& v : x) {
        // Mix of scales, exact zeros and ties.
        const uint64_t kind = rng() % 4;
        v = kind == 0   ? 0.0F
            : kind == 1 ? 1.0F
                        : static_cast<float>(std::ldexp(static_cast<double>(rng() % 1000),
                                                        static_cast<int>(rng() % 40) - 20));
      }
      const std::vector<real> xn = normalised(x);
      std::vector<uint32_t> u(d);
      p2b::round_to_units(xn.data(), d, units, u.data());
      uint64_t sum = 0;
      for (uint32_t i = 0; i < d; ++i) {
        sum += u[i];
        // Largest remainder never moves an entry by a whole unit or more.
        EXPECT_LT(std::fabs(static_cast<double>(u[i]) - static_cast<double>(xn[i]) * units),
                  1.0 + 1e-3)
            << "q=" << q << " d=" << d;
      }
      ASSERT_EQ(sum, units) << "q=" << q << " d=" << d;
    }
  }
}

TEST(Encoder, LargestRemaindersGetTheMissingUnits) {
  const std::vector<real> xn = {real(0.26), real(0.34), real(0.4)};  // x10: 2.6 3.4 4.0
  std::vector<uint32_t> u(3);
  p2b::round_to_units(xn.data(), 3, 10, u.data());
  EXPECT_EQ(u, (std::vector<uint32_t>{3, 3, 4}));
}

TEST(Encoder, TiesGoToTheLowerIndex) {
  const std::vector<float> x = {1, 1, 1};  // 3.33 each: one unit left over
  const std::vector<real> xn = normalised(x);
  std::vector<uint32_t> u(3);
  p2b::round_to_units(xn.data(), 3, 10, u.data());
  EXPECT_EQ(u, (std::vector<uint32_t>{4, 3, 3}));
}

TEST(Encoder, ZeroContextBecomesUniform) {
  const std::vector<real> xn = normalised(std::vector<float>(10, 0.0F));
  for (real v : xn) EXPECT_FLOAT_EQ(static_cast<float>(v), 0.1F);
  std::vector<uint32_t> u(10);
  p2b::round_to_units(xn.data(), 10, 10, u.data());
  EXPECT_EQ(u, std::vector<uint32_t>(10, 1));
}

TEST(Encoder, OneHotContextKeepsAllUnitsInPlace) {
  std::vector<float> x(7, 0.0F);
  x[4] = 123.0F;
  const std::vector<real> xn = normalised(x);
  std::vector<uint32_t> u(7);
  p2b::round_to_units(xn.data(), 7, 100, u.data());
  std::vector<uint32_t> want(7, 0);
  want[4] = 100;
  EXPECT_EQ(u, want);
}

TEST(Encoder, NearestCentroidEqualsBruteForce) {
  std::mt19937_64 rng(2);
  for (const uint32_t k : {1U, 2U, 32U, 1024U}) {
    const uint32_t d = 10;
    const std::vector<float> codebook = p2b_test::random_codebook(k, d, k);
    for (int trial = 0; trial < 300; ++trial) {
      const std::vector<float> x = p2b_test::simplex_point(rng, d);
      const std::vector<real> xn = normalised(x);
      std::vector<uint32_t> u(d);
      p2b::round_to_units(xn.data(), d, 10, u.data());
      const uint32_t got = p2b::nearest_code(u.data(), d, 10, codebook.data(), k);
      // Brute force in double over the same rounded point.
      double best = INFINITY;
      uint32_t best_c = 0;
      auto dist = [&](uint32_t c) {
        double s = 0;
        for (uint32_t i = 0; i < d; ++i) {
          const double diff = u[i] / 10.0 - codebook[c * d + i];
          s += diff * diff;
        }
        return s;
      };
      for (uint32_t c = 0; c < k; ++c) {
        if (dist(c) < best) best = dist(c), best_c = c;
      }
      // Equal codes, or a float-rounding tie between equidistant centroids.
      if (got != best_c) {
        EXPECT_NEAR(dist(got), best, 1e-6) << "k=" << k;
      }
    }
  }
}

TEST(Encoder, AgentEncodeAndCentroidUseTheCodebookHandedIn) {
  const uint32_t d = 3;
  // Codebook: the three one-hot corners and the centre.
  const std::vector<float> codebook = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1 / 3.0F, 1 / 3.0F, 1 / 3.0F};
  p2b_config cfg = p2b_test::base_config(d, 2, 4, 1);
  cfg.centroids = codebook.data();
  auto t = p2b_test::make_agent(cfg);
  uint32_t code = 99;
  const float corner[3] = {0, 5, 0};
  ASSERT_EQ(p2b_agent_encode(t.agent, corner, d, &code), P2B_OK);
  EXPECT_EQ(code, 1U);
  const float zero[3] = {0, 0, 0};
  ASSERT_EQ(p2b_agent_encode(t.agent, zero, d, &code), P2B_OK);
  EXPECT_EQ(code, 3U);
  float c[3];
  ASSERT_EQ(p2b_agent_centroid(t.agent, 2, c, d), P2B_OK);
  EXPECT_EQ(std::vector<float>(c, c + 3), (std::vector<float>{0, 0, 1}));
  EXPECT_EQ(p2b_agent_centroid(t.agent, 4, c, d), P2B_ERR_CODE_OUT_OF_RANGE);
}

}  // namespace
