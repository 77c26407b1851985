// The privacy core of the shuffler: a uniformly random order, so that the
// position of a record in a batch says nothing about when or from whom it
// arrived, and crowd thresholding, so that the analyzer only learns about
// codes that many devices share (docs/shuffler.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/crowd_threshold.hpp"

namespace p2b::shuffler {

// The threshold decision and the randomness behind it are shared with the
// analyzer, which applies the same policy again to the valid reports.
using common::crowd_survives;
using common::csprng;
using common::Randomness;
using common::rounded_gaussian;
using common::ThresholdPolicy;

// A uniformly random permutation of 0..n-1 (Fisher-Yates driven by an
// unbiased uniform draw). n must fit in 32 bits.
std::vector<std::size_t> random_permutation(std::size_t n, Randomness& rng = csprng());

// Shuffles the records whose crowd ids are given and returns the indices of
// those in released crowds, in shuffled order. One noise draw per crowd and
// call, so a crowd is released or dropped as a whole.
std::vector<std::size_t> shuffle_and_threshold(const std::vector<uint32_t>& crowd_ids,
                                               const ThresholdPolicy& policy,
                                               Randomness& rng = csprng());

}  // namespace p2b::shuffler
