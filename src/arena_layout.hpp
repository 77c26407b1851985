// Where each block of an agent lives inside its arena. footprint() and init()
// both derive from this one function, which is what makes footprint exact.
#pragma once

#include <cstddef>

#include "p2b/agent.hpp"

namespace p2b {

struct ArenaLayout {
  std::size_t factor;     // K * d * d reals: Cholesky factors
  std::size_t b;          // K * d reals
  std::size_t zb;         // K * d reals: L^-1 b, theta whitened
  std::size_t inv_diag;   // K * d reals: 1 / L_jj of each factor
  std::size_t lanes;      // ceil(K / 4) lane groups: the scoring copy (arm_lanes.hpp)
  std::size_t codebook;   // k * d floats
  std::size_t pending;    // pending_capacity slots
  std::size_t pending_x;  // pending_capacity * d reals: normalised contexts
  std::size_t window;     // window entries
  std::size_t window_x;   // window * d reals: their normalised contexts
  std::size_t outbox;     // outbox reports
  std::size_t scratch;    // d * d + 2 * d reals
  std::size_t staging;    // K * staged_arm_reals(d) reals: an incoming model's arms
  std::size_t total;
};

// Offsets from the arena's start, after a header of `header_bytes` (the
// agent's state object). `shape` must already be validated.
ArenaLayout compute_layout(const Shape& shape, std::size_t header_bytes);

}  // namespace p2b
