#include "arena_layout.hpp"

#include "arm_lanes.hpp"
#include "pending_ring.hpp"
#include "reporter.hpp"
#include "staged_arms.hpp"

namespace p2b {

namespace {

std::size_t align_up(std::size_t n) {
  return (n + kArenaAlign - 1) / kArenaAlign * kArenaAlign;
}

// Appends a block of `bytes` at the next aligned offset and returns its offset.
std::size_t take(std::size_t* cursor, std::size_t bytes) {
  const std::size_t at = align_up(*cursor);
  *cursor = at + bytes;
  return at;
}

}  // namespace

ArenaLayout compute_layout(const Shape& shape, std::size_t header_bytes) {
  const std::size_t d = shape.dim;
  const std::size_t k_arms = shape.n_actions;
  ArenaLayout l{};
  std::size_t cur = header_bytes;
  l.factor = take(&cur, k_arms * d * d * sizeof(real));
  l.b = take(&cur, k_arms * d * sizeof(real));
  l.zb = take(&cur, k_arms * d * sizeof(real));
  l.inv_diag = take(&cur, k_arms * d * sizeof(real));
  l.lanes = take(&cur, lane_group_count(k_arms) * lane_group_reals(d) * sizeof(real));
  l.codebook = take(&cur, static_cast<std::size_t>(shape.n_codes) * d * sizeof(float));
  l.pending = take(&cur, shape.pending_capacity * sizeof(PendingSlot));
  l.pending_x = take(&cur, shape.pending_capacity * d * sizeof(real));
  l.window = take(&cur, shape.window * sizeof(WindowEntry));
  l.window_x = take(&cur, static_cast<std::size_t>(shape.window) * d * sizeof(real));
  l.outbox = take(&cur, shape.outbox_capacity * sizeof(Report));
  l.scratch = take(&cur, (d * d + 2 * d) * sizeof(real));
  l.staging = take(&cur, k_arms * staged_arm_reals(d) * sizeof(real));
  l.total = align_up(cur);
  return l;
}

}  // namespace p2b
