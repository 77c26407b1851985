#include "arena_layout.hpp"

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

ArenaLayout compute_layout(const Config& cfg, std::size_t header_bytes, std::size_t slot_bytes,
                           std::size_t entry_bytes, std::size_t report_bytes) {
  const std::size_t d = cfg.dim;
  const std::size_t k_arms = cfg.n_actions;
  ArenaLayout l{};
  std::size_t cur = header_bytes;
  l.factor = take(&cur, k_arms * d * d * sizeof(real));
  l.b = take(&cur, k_arms * d * sizeof(real));
  l.theta = take(&cur, k_arms * d * sizeof(real));
  l.codebook = take(&cur, static_cast<std::size_t>(cfg.n_codes) * d * sizeof(float));
  l.pending = take(&cur, cfg.pending_capacity * slot_bytes);
  l.pending_x = take(&cur, cfg.pending_capacity * d * sizeof(real));
  l.window = take(&cur, cfg.window * entry_bytes);
  l.outbox = take(&cur, cfg.outbox_capacity * report_bytes);
  l.scratch = take(&cur, (d * d + 2 * d) * sizeof(real));
  l.staging = take(&cur, d * d * sizeof(double));
  l.total = align_up(cur);
  return l;
}

}  // namespace p2b
