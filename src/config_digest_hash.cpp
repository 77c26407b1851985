#include "config_digest_hash.hpp"

#include <cstring>

namespace p2b {

uint64_t fnv1a64(const void* data, std::size_t len, uint64_t h) {
  const auto* p = static_cast<const uint8_t*>(data);
  for (std::size_t i = 0; i < len; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

uint64_t config_digest(const Config& c) {
  uint64_t h = fnv1a64(nullptr, 0);
  auto mix_u32 = [&h](uint32_t v) {
    const uint8_t b[4] = {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
    h = fnv1a64(b, sizeof b, h);
  };
  auto mix_f64 = [&mix_u32](double v) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    mix_u32(static_cast<uint32_t>(bits));
    mix_u32(static_cast<uint32_t>(bits >> 32));
  };
  mix_u32(c.dim);
  mix_u32(c.n_actions);
  mix_u32(static_cast<uint32_t>(c.policy));
  mix_f64(c.alpha);
  mix_f64(c.ridge_lambda);
  mix_f64(c.ts_scale);
  mix_u32(c.round_digits);
  mix_u32(c.window);
  mix_f64(c.participation);
  mix_f64(c.neg_rate);
  mix_f64(c.epsilon_budget);
  mix_u32(c.pending_capacity);
  mix_u32(c.outbox_capacity);
  mix_u32(c.n_codes);
  mix_u32(c.deterministic ? 1U : 0U);
  const std::size_t n = static_cast<std::size_t>(c.n_codes) * c.dim;
  for (std::size_t i = 0; i < n; ++i) {
    uint32_t bits = 0;
    std::memcpy(&bits, &c.centroids[i], sizeof bits);
    mix_u32(bits);
  }
  return h;
}

}  // namespace p2b
