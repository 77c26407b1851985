// What a party computes each round: its masked vectors Q^j x_i^j.
#pragma once

#include <cstdint>

#include "vfl/mask.hpp"

namespace p2b::vfl {

// out (K' x d, row-major) = x_j (K' x d_j, row-major) times Q^jT, i.e. row i
// is Q^j x_i^j. O(K' d d_j). A pure function of (Q^j, x^j): no reward, model
// or state of the active party can enter a party's message. False, with
// `out` untouched, when the block's shape is inconsistent.
bool mask_block(const MaskBlock& block, const double* x_j, uint32_t k_items, double* out);

}  // namespace p2b::vfl
