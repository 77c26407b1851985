// The P2B encoder's input space: every vector of d non-negative multiples of
// 10^-q that sums to 1 (stars and bars, C(10^q + d - 1, d - 1) points).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "codebook/rng.hpp"

namespace p2b::codebook {

// Number of grid points, saturating at UINT64_MAX.
uint64_t grid_point_count(uint32_t d, uint32_t q);

// Every grid point, row-major (n x d), in lexicographic order of the integer
// compositions. Only for grids the caller has checked are small.
std::vector<float> enumerate_grid(uint32_t d, uint32_t q);

// One grid point drawn uniformly (each composition equally likely): d - 1
// distinct bar positions among 10^q + d - 1 slots, by Floyd's algorithm.
// `scratch` holds at least d entries.
void sample_grid_point(uint32_t d, uint32_t q, Rng& rng, uint32_t* scratch, float* out);

// `n` uniform grid points from a stream that depends only on `seed` and
// fixed chunks of kSampleChunk points (so it is the same for any threads).
std::vector<float> sample_grid(uint32_t d, uint32_t q, std::size_t n, uint64_t seed,
                               unsigned threads);

}  // namespace p2b::codebook
