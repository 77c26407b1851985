// The privacy core of the shuffler: a uniformly random order, so that the
// position of a record in a batch says nothing about when or from whom it
// arrived, and crowd thresholding, so that the analyzer only learns about
// codes that many devices share (DESIGN.md section 5; docs/shuffler.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace p2b::shuffler {

struct ThresholdPolicy {
  std::size_t threshold = 10;  // L
  double noise_sigma = 0;      // 0: the plain, deterministic threshold
};

// A uniformly random permutation of 0..n-1 (Fisher-Yates driven by
// libsodium's unbiased randombytes_uniform). n must fit in 32 bits.
std::vector<std::size_t> csprng_permutation(std::size_t n);

// round(N(0, sigma^2)) from the CSPRNG; exactly 0 when sigma is 0.
long long rounded_gaussian(double sigma);

// Whether a crowd of `count` records in one batch is released.
bool crowd_survives(std::size_t count, const ThresholdPolicy& policy);

// Shuffles the records whose crowd ids are given and returns the indices of
// those in released crowds, in shuffled order. One noise draw per crowd and
// call, so a crowd is released or dropped as a whole.
std::vector<std::size_t> shuffle_and_threshold(const std::vector<uint32_t>& crowd_ids,
                                               const ThresholdPolicy& policy);

}  // namespace p2b::shuffler
