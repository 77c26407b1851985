// The on-device P2B agent: a contextual bandit (LinUCB or LinTS) that learns
// from its own user only, plus the randomized reporter and privacy accountant.
// All state lives in one caller-provided arena; nothing here allocates,
// throws or uses RTTI. An Agent is not thread-safe: use one per thread or lock.
//
// Agent is a handle: only Agent::init makes one, inside the arena, and its
// data (the arms, pending ring, reporter and codebook copy) is defined in
// src/, not here, so nothing below depends on the arena's layout.
#pragma once

#include <cstddef>
#include <cstdint>

#include "p2b/config.hpp"
#include "p2b/crypto.hpp"
#include "p2b/status.hpp"

namespace p2b {

struct Report {
  uint32_t code;
  uint32_t action;
  float reward;
};

struct KeyFingerprints {
  uint8_t shuffler[kFingerprintBytes];
  uint8_t analyzer[kFingerprintBytes];
  uint8_t analyzer_verify[kFingerprintBytes];
  uint8_t codebook[kFingerprintBytes];  // see p2b/codebook_format.hpp
};

struct PrivacyLedger {
  double epsilon_per_report;
  double epsilon_spent;
  double epsilon_budget;
  uint64_t reports;         // tuples released to the outbox
  uint64_t windows_closed;  // participation decisions made
  uint64_t dropped_outbox_full;
  bool exhausted;
};

enum class StatsForm : uint32_t {
  gram = 0,      // A itself (symmetric positive definite), column-major
  cholesky = 1,  // lower-triangular L with A = L L^T, positive diagonal
};

// The configuration fields the arena's size depends on, and nothing else.
struct Shape {
  uint32_t dim;
  uint32_t n_actions;
  uint32_t n_codes;
  uint32_t pending_capacity;
  uint32_t outbox_capacity;
  uint32_t window;
};

inline Shape shape_of(const Config& cfg) {
  return Shape{cfg.dim,   cfg.n_actions, cfg.n_codes, cfg.pending_capacity, cfg.outbox_capacity,
               cfg.window};
}

// bad_config unless every field of `shape` is within the compiled limits.
Status validate_shape(const Shape& shape);
// Everything init checks before touching memory, except the codebook's values.
Status validate_config(const Config& cfg);

// Exact arena byte count for a shape; the arena must also be
// kArenaAlign-aligned. Needs no keys, ports or codebook: only the shape is
// checked (bad_config). The Config overload reads the shape from `cfg`.
Status footprint(const Shape& shape, std::size_t* bytes);
Status footprint(const Config& cfg, std::size_t* bytes);

class Agent {
 public:
  static Status init(void* mem, std::size_t len, const Config& cfg, Agent** out);

  // Checks that `mem` holds an agent set up by init (and not since clobbered).
  static Status check(const void* mem);

  Status decide(const float* x, std::size_t len, uint32_t* action, uint64_t* decision_id);
  Status reward(uint64_t decision_id, float r);
  // Learn from a logged interaction; it is not a candidate for reporting.
  Status learn(const float* x, std::size_t len, uint32_t action, float r);
  // Erases what was learned about the user; keeps config, keys, codebook,
  // the random stream, the privacy ledger and the model-version floor.
  Status forget();
  Status scores(const float* x, std::size_t len, float* mean, float* width, std::size_t cap);
  // The next report as a sealed, fixed-length envelope (kEnvelopeBytes).
  Status poll_envelope(uint8_t* out, std::size_t cap, std::size_t* written);
  // The next report in plaintext: for simulation and tests only, never send it.
  Status poll_tuple(Report* out);

  Status encode(const float* x, std::size_t len, uint32_t* code) const;
  Status centroid(uint32_t code, float* out, std::size_t len) const;

  // Verifies and applies a signed warm-start model bundle (server/wire makes
  // them): signature by the pinned analyzer key, format, same d, K and
  // codebook, a kind this agent accepts, and a version newer than the last
  // one of its kind and not below cfg.min_model_version. All-or-nothing.
  // apply_model knows no time and skips the not-after check; apply_model_at
  // refuses a bundle whose not-after time is set and before `now_unix`.
  Status apply_model(const uint8_t* bundle, std::size_t len);
  Status apply_model_at(const uint8_t* bundle, std::size_t len, uint64_t now_unix);
  // The version last applied of a model kind (0 private, 1 raw baseline).
  Status model_version_of(uint32_t kind, uint64_t* version) const;

  // Verifies and applies a signed shuffler-key list (p2b/key_list.hpp):
  // signature by the pinned analyzer key, its signer, every field, a
  // not-after time (when set) not before `now_unix`, and a version above the
  // one applied. Then poll_envelope seals to the list's current key, and
  // envelope_key_accepted accepts any key of the list. All-or-nothing.
  Status apply_key_list(const uint8_t* list, std::size_t len, uint64_t now_unix);
  // The version of the key list applied last (0: none, the configured key).
  uint64_t key_list_version() const;
  // ok when `envelope` (kEnvelopeBytes) is sealed to a shuffler key the
  // applied list accepts (before any list: the configured key); key_retired
  // when the shuffler would refuse it, so the app should drop it unsent.
  Status envelope_key_accepted(const uint8_t* envelope, std::size_t len) const;

  Status import_stats(const double* a, const double* b, uint32_t n_actions, uint32_t dim,
                      StatsForm form);
  Status export_stats(double* a, double* b, uint32_t n_actions, uint32_t dim) const;
  // One LinTS draw mu ~ N(theta_a, v^2 A_a^-1) for arm `action` (tests, introspection).
  Status sample_parameters(uint32_t action, real* mu, std::size_t len);

  Status privacy(PrivacyLedger* out) const;
  Status fingerprints(KeyFingerprints* out) const;
  uint64_t model_version() const;

  Status saved_size(std::size_t* bytes) const;
  // The state, MACed under a subkey of the app's 32-byte state key
  // (kAeadKeyBytes); restore refuses any other key or any edit.
  Status save(const uint8_t* key, void* buf, std::size_t cap, std::size_t* written) const;
  Status restore(const uint8_t* key, const void* buf, std::size_t len);
  // The same state in an XChaCha20-Poly1305 box under the same key.
  // restore_encrypted decrypts in place: `buf` is overwritten.
  Status encrypted_size(std::size_t* bytes) const;
  Status save_encrypted(const uint8_t* key, void* buf, std::size_t cap, std::size_t* written) const;
  Status restore_encrypted(const uint8_t* key, uint8_t* buf, std::size_t len);

  uint32_t dim() const;
  uint32_t n_actions() const;

  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

 protected:
  // Only the arena's internal state object (src/agent_state.hpp) derives
  // from Agent; an Agent never exists on its own.
  Agent() = default;
  ~Agent() = default;
};

}  // namespace p2b
