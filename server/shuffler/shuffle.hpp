// The privacy core of the shuffler: a uniformly random order, so that the
// position of a record in a batch says nothing about when or from whom it
// arrived, and crowd thresholding, so that the analyzer only learns about
// codes that many devices share (docs/shuffler.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace p2b::shuffler {

// Where the shuffler's randomness comes from. Production uses the CSPRNG
// (libsodium); simulations pass a seeded source so that a run repeats.
class Randomness {
 public:
  virtual ~Randomness() = default;
  virtual uint32_t uniform(uint32_t n) = 0;  // unbiased, in [0, n)
  virtual double unit_open0() = 0;           // uniform on (0, 1]
};

// libsodium's randombytes: the service's source.
Randomness& csprng();

struct ThresholdPolicy {
  std::size_t threshold = 10;  // L
  double noise_sigma = 0;      // 0: the plain, deterministic threshold
};

// A uniformly random permutation of 0..n-1 (Fisher-Yates driven by an
// unbiased uniform draw). n must fit in 32 bits.
std::vector<std::size_t> random_permutation(std::size_t n, Randomness& rng = csprng());

// round(N(0, sigma^2)); exactly 0 when sigma is 0.
long long rounded_gaussian(double sigma, Randomness& rng = csprng());

// Whether a crowd of `count` records in one batch is released.
bool crowd_survives(std::size_t count, const ThresholdPolicy& policy, Randomness& rng = csprng());

// Shuffles the records whose crowd ids are given and returns the indices of
// those in released crowds, in shuffled order. One noise draw per crowd and
// call, so a crowd is released or dropped as a whole.
std::vector<std::size_t> shuffle_and_threshold(const std::vector<uint32_t>& crowd_ids,
                                               const ThresholdPolicy& policy,
                                               Randomness& rng = csprng());

}  // namespace p2b::shuffler
