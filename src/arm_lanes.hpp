// LinUCB scoring with the arms side by side: lanes = arms. The agent keeps a
// second, derived copy of its arms' factors, kArmLanes arms to a group, with
// entry (i, j) of every arm of the group next to each other, so one step of
// the forward substitution is one short vector operation over the group.
// Each lane runs exactly the operations, in exactly the order, that the
// scalar code runs for one arm (no sum is split across lanes), so a score's
// bits depend neither on the vector width the compiler picks (SSE2 on
// x86-64, NEON on aarch64) nor on whether it vectorises at all (armhf, whose
// NEON flushes subnormals and so is left unused by the compiler, and
// Cortex-M4): one seed gives one action sequence on every target.
//
// The copy is a cache, never saved: it is a pure function of the canonical
// factor and b (ridge_arm.hpp), rebuilt whenever they change.
#pragma once

#include <cstddef>
#include <cstdint>

#include "p2b/config.hpp"

namespace p2b {

// Four lanes: one 128-bit vector of floats, the width every SIMD target has.
constexpr uint32_t kArmLanes = 4;

// Entries of a d x d lower triangle, diagonal included.
constexpr std::size_t lower_entries(std::size_t d) {
  return d * (d + 1) / 2;
}

// Reals one group takes: each lane's lower triangle, packed column by column
// with the reciprocal 1 / L_jj in place of L_jj, then its zb = L^-1 b.
constexpr std::size_t lane_group_reals(std::size_t d) {
  return (lower_entries(d) + d) * kArmLanes;
}

// Groups needed for `n_arms` arms; the last group's spare lanes hold an
// identity factor and zb = 0, whose scores are finite and never read.
constexpr std::size_t lane_group_count(std::size_t n_arms) {
  return (n_arms + kArmLanes - 1) / kArmLanes;
}

// Writes one arm into lane `lane` of `group`.
void lanes_store_arm(const real* L, const real* inv_diag, const real* zb, uint32_t d, real* group,
                     uint32_t lane);

// Fills lane `lane` of `group` with the identity factor and zb = 0.
void lanes_store_spare(uint32_t d, real* group, uint32_t lane);

// Mean theta.x = zb.z and width |z| = sqrt(x^T A^-1 x), z = L^-1 x, of the
// group's kArmLanes arms.
void lanes_mean_width(const real* group, uint32_t d, const real* x, real* mean, real* width);

}  // namespace p2b
