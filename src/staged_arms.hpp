// The arms of an incoming model (a signed bundle or imported statistics),
// staged whole in the arena before any of the agent's arms is replaced. Each
// arm is parsed and factored once, into scratch, and its factor's lower
// triangle and its b are kept here; only when every arm has passed are they
// committed. So a model refused at its last arm changes nothing, and an
// accepted one costs one parse and one factorisation per arm.
#pragma once

#include <cstddef>
#include <cstdint>

#include "arm_set.hpp"

namespace p2b {

// Reals one staged arm takes: the factor's lower triangle, column by
// column, then b. Packed, it needs a little over half of the d * d an arm's
// factor takes in place.
constexpr std::size_t staged_arm_reals(std::size_t d) {
  return d * (d + 1) / 2 + d;
}

// Keeps arm `arm_index`'s factor (`l`: d x d, column-major, lower triangle
// read) and b (d values, already checked to fit `real`) in the staging block.
void stage_arm(const ArmSet& arms, uint32_t arm_index, const real* l, const double* b);

// Replaces every arm's factor and b with the staged ones and refreshes its
// theta. Scratch is overwritten.
void commit_staged_arms(ArmSet& arms);

}  // namespace p2b
