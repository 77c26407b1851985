// Configuration checks, the arena's size, and setting an agent up in it.
#include <cmath>
#include <cstring>
#include <new>

#include "agent_state.hpp"
#include "arena_layout.hpp"
#include "p2b/codebook_format.hpp"
#include "p2b/envelope.hpp"

namespace p2b {

namespace {

bool in_range(double v, double lo, double hi) {
  return v >= lo && v <= hi;
}

ArenaLayout layout_for(const Shape& shape) {
  return compute_layout(shape, sizeof(AgentState));
}

// Everything but the shape: learning, encoding, reporting and the ports.
Status validate_settings(const Config& c) {
  if (c.policy != Policy::linucb && c.policy != Policy::lints) return Status::bad_config;
  if (!in_range(c.alpha, 0.0, 1e6) || !in_range(c.ts_scale, 0.0, 1e6)) return Status::bad_config;
  // lambda >= 1e-6 keeps every factor diagonal >= 1e-3 (see ridge_arm.hpp).
  if (!(c.ridge_lambda >= 1e-6) || !(c.ridge_lambda <= 1e6)) return Status::bad_config;
  if (c.round_digits == 0 || c.round_digits > kMaxDigits) return Status::bad_config;
  if (!(c.participation > 0.0 && c.participation < 1.0)) return Status::bad_config;
  if (!in_range(c.neg_rate, 0.0, 1.0)) return Status::bad_config;
  if (!(c.epsilon_budget > 0.0)) return Status::bad_config;  // NaN fails too; +Inf means unlimited
  if (!c.deterministic && c.random.fill == nullptr) return Status::bad_config;
  const CryptoPort& k = c.crypto;
  if (k.seal == nullptr || k.hash == nullptr || k.verify == nullptr || k.aead_encrypt == nullptr ||
      k.aead_decrypt == nullptr || k.random == nullptr) {
    return Status::bad_config;
  }
  if (c.centroids == nullptr || c.shuffler_public_key == nullptr ||
      c.analyzer_public_key == nullptr || c.analyzer_verify_key == nullptr) {
    return Status::null_pointer;
  }
  return Status::ok;
}

Status check_codebook_values(const Config& cfg) {
  const std::size_t n = static_cast<std::size_t>(cfg.n_codes) * cfg.dim;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(cfg.centroids[i])) return Status::bad_codebook;
  }
  return Status::ok;
}

// The fingerprints come first: a failing crypto port must leave the arena
// untouched.
Status fingerprint_keys(const Config& cfg, KeyFingerprints* fp) {
  if (key_fingerprint(cfg.crypto, cfg.shuffler_public_key, fp->shuffler) != Status::ok ||
      key_fingerprint(cfg.crypto, cfg.analyzer_public_key, fp->analyzer) != Status::ok ||
      key_fingerprint(cfg.crypto, cfg.analyzer_verify_key, fp->analyzer_verify) != Status::ok) {
    return Status::crypto_failure;
  }
  return codebook_fingerprint(cfg.crypto, cfg.centroids, cfg.n_codes, cfg.dim, cfg.round_digits,
                              fp->codebook);
}

}  // namespace

Status validate_shape(const Shape& s) {
  if (s.dim == 0 || s.dim > kMaxDim) return Status::bad_config;
  if (s.n_actions == 0 || s.n_actions > kMaxActions) return Status::bad_config;
  if (s.window == 0 || s.window > kMaxWindow) return Status::bad_config;
  if (s.pending_capacity == 0 || s.pending_capacity > kMaxPending) return Status::bad_config;
  if (s.outbox_capacity == 0 || s.outbox_capacity > kMaxOutbox) return Status::bad_config;
  if (s.n_codes == 0 || s.n_codes > kMaxCodes) return Status::bad_config;
  return Status::ok;
}

Status validate_config(const Config& cfg) {
  const Status st = validate_shape(shape_of(cfg));
  if (st != Status::ok) return st;
  return validate_settings(cfg);
}

Status footprint(const Shape& shape, std::size_t* bytes) {
  if (bytes == nullptr) return Status::null_pointer;
  const Status st = validate_shape(shape);
  if (st != Status::ok) return st;
  *bytes = layout_for(shape).total;
  return Status::ok;
}

Status footprint(const Config& cfg, std::size_t* bytes) {
  return footprint(shape_of(cfg), bytes);
}

Status Agent::init(void* mem, std::size_t len, const Config& cfg, Agent** out) {
  if (mem == nullptr || out == nullptr) return Status::null_pointer;
  Status st = validate_config(cfg);
  if (st == Status::ok) st = check_codebook_values(cfg);
  if (st != Status::ok) return st;
  if (reinterpret_cast<uintptr_t>(mem) % kArenaAlign != 0) return Status::arena_misaligned;
  const ArenaLayout layout = layout_for(shape_of(cfg));
  if (len < layout.total) return Status::arena_too_small;
  KeyFingerprints fp{};
  st = fingerprint_keys(cfg, &fp);
  if (st != Status::ok) return st;

  // Zeroing first makes saved state a pure function of the agent's history.
  std::memset(mem, 0, layout.total);
  AgentState* state = new (mem) AgentState();  // placement only: no allocation
  state->setup(cfg, layout, fp);
  state->magic = kAgentMagic;
  *out = state;
  return Status::ok;
}

Status Agent::check(const void* mem) {
  if (mem == nullptr) return Status::null_pointer;
  if (reinterpret_cast<uintptr_t>(mem) % kArenaAlign != 0) return Status::not_initialized;
  uint32_t head[2];
  std::memcpy(head, mem, sizeof head);  // magic and layout_version lead the state
  if (head[0] != kAgentMagic || head[1] != kLayoutVersion) return Status::not_initialized;
  return Status::ok;
}

}  // namespace p2b
