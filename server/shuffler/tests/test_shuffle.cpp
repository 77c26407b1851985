// Shuffling and thresholding: a uniform permutation, whole crowds released
// or dropped, and noise that is off at sigma 0 and real above it.
#include <gtest/gtest.h>
#include <sodium.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "shuffler/shuffle.hpp"

namespace {

using p2b::shuffler::ThresholdPolicy;

class ShufflerShuffle : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_GE(sodium_init(), 0); }
};

TEST_F(ShufflerShuffle, APermutationHoldsEveryIndexOnce) {
  for (std::size_t n : {0U, 1U, 2U, 17U, 1000U}) {
    std::vector<std::size_t> p = p2b::shuffler::random_permutation(n);
    std::sort(p.begin(), p.end());
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(p[i], i);
    ASSERT_EQ(p.size(), n);
  }
}

TEST_F(ShufflerShuffle, EveryPositionIsEquallyLikely) {
  // 6000 permutations of 4: each element lands at position 0 about 1500
  // times; the bounds are over 8 standard deviations wide.
  std::map<std::size_t, int> first;
  for (int t = 0; t < 6000; ++t) ++first[p2b::shuffler::random_permutation(4)[0]];
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_GT(first[i], 1230) << i;
    EXPECT_LT(first[i], 1770) << i;
  }
}

TEST_F(ShufflerShuffle, SigmaZeroIsThePlainThreshold) {
  for (std::size_t count = 0; count < 30; ++count) {
    for (int t = 0; t < 20; ++t) {
      ASSERT_EQ(p2b::shuffler::crowd_survives(count, ThresholdPolicy{10, 0}), count >= 10);
    }
  }
  EXPECT_EQ(p2b::shuffler::rounded_gaussian(0), 0);

  std::vector<uint32_t> crowds;
  for (uint32_t c = 1; c <= 20; ++c) {
    for (uint32_t i = 0; i < c; ++i) crowds.push_back(c);  // crowd c has c records
  }
  const std::vector<std::size_t> kept =
      p2b::shuffler::shuffle_and_threshold(crowds, ThresholdPolicy{10, 0});
  std::multiset<uint32_t> got;
  for (std::size_t i : kept) got.insert(crowds[i]);
  std::multiset<uint32_t> want;
  for (uint32_t c : crowds) {
    if (c >= 10) want.insert(c);
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(std::set<std::size_t>(kept.begin(), kept.end()).size(), kept.size());
}

TEST_F(ShufflerShuffle, NoisyThresholdMovesTheCutBothWays) {
  // With sigma 3 around L = 10: a crowd of 9 is sometimes released and a
  // crowd of 11 sometimes dropped, which is what makes one report deniable.
  const ThresholdPolicy noisy{10, 3};
  int below_kept = 0;
  int above_dropped = 0;
  for (int t = 0; t < 2000; ++t) {
    below_kept += p2b::shuffler::crowd_survives(9, noisy) ? 1 : 0;
    above_dropped += p2b::shuffler::crowd_survives(11, noisy) ? 0 : 1;
  }
  EXPECT_GT(below_kept, 400);
  EXPECT_LT(below_kept, 1200);
  EXPECT_GT(above_dropped, 200);
  EXPECT_LT(above_dropped, 1000);
}

TEST_F(ShufflerShuffle, GaussianNoiseHasTheRequestedSpread) {
  double sum = 0;
  double sq = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const auto z = static_cast<double>(p2b::shuffler::rounded_gaussian(10));
    sum += z;
    sq += z * z;
  }
  const double mean = sum / n;
  const double sd = std::sqrt(sq / n - mean * mean);
  EXPECT_NEAR(mean, 0, 0.5);
  EXPECT_NEAR(sd, 10, 0.5);
}

TEST_F(ShufflerShuffle, ACrowdIsReleasedOrDroppedAsAWhole) {
  std::vector<uint32_t> crowds(40);
  for (std::size_t i = 0; i < crowds.size(); ++i) crowds[i] = static_cast<uint32_t>(i % 4);
  for (int t = 0; t < 200; ++t) {
    const auto kept = p2b::shuffler::shuffle_and_threshold(crowds, ThresholdPolicy{10, 4});
    std::map<uint32_t, int> per_crowd;
    for (std::size_t i : kept) ++per_crowd[crowds[i]];
    for (const auto& [crowd, n] : per_crowd) ASSERT_EQ(n, 10) << crowd;
  }
}

// A seeded source (as p2b-sim passes) makes shuffle and noisy threshold repeat
// exactly; the CSPRNG default does not.
class CountingSource final : public p2b::shuffler::Randomness {
 public:
  explicit CountingSource(uint64_t seed) : state_(seed) {}
  uint32_t uniform(uint32_t n) override { return static_cast<uint32_t>(next() % n); }
  double unit_open0() override { return static_cast<double>((next() >> 11) + 1) * 0x1.0p-53; }

 private:
  uint64_t next() {  // splitmix64
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t state_;
};

TEST_F(ShufflerShuffle, ASeededSourceRepeatsShuffleAndNoise) {
  std::vector<uint32_t> crowds;
  for (uint32_t i = 0; i < 400; ++i) crowds.push_back(i % 37);
  const ThresholdPolicy noisy{10, 3.0};
  CountingSource a(5), b(5), c(6);
  const auto first = p2b::shuffler::shuffle_and_threshold(crowds, noisy, a);
  EXPECT_EQ(first, p2b::shuffler::shuffle_and_threshold(crowds, noisy, b));
  EXPECT_NE(first, p2b::shuffler::shuffle_and_threshold(crowds, noisy, c));
  EXPECT_NE(p2b::shuffler::shuffle_and_threshold(crowds, noisy),
            p2b::shuffler::shuffle_and_threshold(crowds, noisy));
}

}  // namespace
