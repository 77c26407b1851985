// Context encoding of the P2B paper (section 3.2): normalise to sum 1, keep q
// decimal digits with the sum preserved exactly, map to the nearest centroid.
#pragma once

#include <cstdint>

#include "p2b/config.hpp"
#include "p2b/status.hpp"

namespace p2b {

// Checks length-independent validity of a raw context: finite, non-negative.
Status check_context(const float* x, uint32_t d);

// out = x / sum(x); a zero context becomes uniform. x must pass check_context.
void normalise_context(const float* x, uint32_t d, real* out);

// Largest-remainder rounding of a normalised context to `units` = 10^q parts:
// the result sums to exactly `units`. Ties go to the lower index.
void round_to_units(const real* xn, uint32_t d, uint32_t units, uint32_t* out);

// Index of the centroid (row-major k x d floats) nearest in squared Euclidean
// distance to the rounded vector units/10^q; ties go to the lower index.
uint32_t nearest_code(const uint32_t* units_vec, uint32_t d, uint32_t units, const float* centroids,
                      uint32_t k);

uint32_t pow10_u32(uint32_t q);

}  // namespace p2b
