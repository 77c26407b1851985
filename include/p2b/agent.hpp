// The on-device P2B agent: a contextual bandit (LinUCB or LinTS) that learns
// from its own user only, plus the randomized reporter and privacy accountant.
// All state lives in one caller-provided arena; nothing here allocates,
// throws or uses RTTI. An Agent is not thread-safe: use one per thread or lock.
#pragma once

#include <cstddef>
#include <cstdint>

#include "p2b/config.hpp"
#include "p2b/crypto.hpp"
#include "p2b/random.hpp"
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

Status validate_config(const Config& cfg);

// Exact arena byte count for `cfg`; the arena must also be kArenaAlign-aligned.
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
  // them): signature by the pinned analyzer key, same d, K and codebook, and
  // a version newer than the last one applied. All-or-nothing.
  Status apply_model(const uint8_t* bundle, std::size_t len);

  Status import_stats(const double* a, const double* b, uint32_t n_actions, uint32_t dim,
                      StatsForm form);
  Status export_stats(double* a, double* b, uint32_t n_actions, uint32_t dim) const;
  // One LinTS draw mu ~ N(theta_a, v^2 A_a^-1) for arm `action` (tests, introspection).
  Status sample_parameters(uint32_t action, real* mu, std::size_t len);

  Status privacy(PrivacyLedger* out) const;
  Status fingerprints(KeyFingerprints* out) const;
  uint64_t model_version() const { return model_version_; }

  Status saved_size(std::size_t* bytes) const;
  Status save(void* buf, std::size_t cap, std::size_t* written) const;
  Status restore(const void* buf, std::size_t len);
  // The same state in an XChaCha20-Poly1305 box under the app's 32-byte key.
  // restore_encrypted decrypts in place: `buf` is overwritten.
  Status encrypted_size(std::size_t* bytes) const;
  Status save_encrypted(const uint8_t* key, void* buf, std::size_t cap, std::size_t* written) const;
  Status restore_encrypted(const uint8_t* key, uint8_t* buf, std::size_t len);

  uint32_t dim() const { return dim_; }
  uint32_t n_actions() const { return n_actions_; }

 private:
  friend class StateCodec;

  struct PendingSlot {
    uint64_t id;
    uint32_t action;
    uint32_t code;
    uint32_t state;  // 0 empty, 1 awaiting reward, 2 rewarded
    uint32_t reserved;
  };
  struct WindowEntry {
    uint32_t code;
    uint32_t action;
    float reward;
  };

  Agent() = default;

  // Arena views, derived from offsets so the arena is position-independent.
  template <typename T>
  T* block(std::size_t offset) const {
    // const_cast: a const Agent still hands out its arena blocks, as the
    // arena, not the header object, is what const-ness protects here.
    return reinterpret_cast<T*>(const_cast<char*>(reinterpret_cast<const char*>(this)) + offset);
  }
  struct ArmView arm(uint32_t a) const;
  real* pending_x(uint32_t slot) const;

  Status check_input_context(const float* x, std::size_t len) const;
  uint32_t encode_normalised(const real* xn) const;
  Status choose(const real* xn, uint64_t rotation, uint32_t* action);
  void record_interaction(uint32_t code, uint32_t action, float r);
  Status draw_window_randomness(double u[3]);
  void close_window(const double u[3]);
  bool budget_allows_one_more() const;
  Status walk_model(const uint8_t* body, std::size_t len, bool apply);

  uint32_t magic_ = 0;
  uint32_t layout_version_ = 0;
  uint32_t dim_ = 0;
  uint32_t n_actions_ = 0;
  Policy policy_ = Policy::linucb;
  uint32_t units_ = 0;  // 10^q
  uint32_t window_ = 0;
  uint32_t pending_capacity_ = 0;
  uint32_t outbox_capacity_ = 0;
  uint32_t n_codes_ = 0;
  double alpha_ = 0;
  double ridge_lambda_ = 0;
  double ts_scale_ = 0;
  double participation_ = 0;
  double neg_rate_ = 0;
  double epsilon_budget_ = 0;
  double epsilon_per_report_ = 0;
  uint64_t config_digest_ = 0;

  Rng rng_;
  uint64_t next_id_ = 0;
  uint64_t reports_ = 0;
  uint64_t windows_closed_ = 0;
  uint64_t dropped_outbox_full_ = 0;
  uint32_t window_len_ = 0;
  uint32_t outbox_head_ = 0;
  uint32_t outbox_len_ = 0;
  uint32_t reserved_ = 0;

  std::size_t off_factor_ = 0;
  std::size_t off_b_ = 0;
  std::size_t off_theta_ = 0;
  std::size_t off_codebook_ = 0;
  std::size_t off_pending_ = 0;
  std::size_t off_pending_x_ = 0;
  std::size_t off_window_ = 0;
  std::size_t off_outbox_ = 0;
  std::size_t off_scratch_ = 0;
  std::size_t off_staging_ = 0;
  std::size_t total_bytes_ = 0;

  CryptoPort crypto_{};
  uint64_t model_version_ = 0;  // of the last warm-start model applied
  uint8_t shuffler_pk_[kPublicKeyBytes] = {};
  uint8_t analyzer_pk_[kPublicKeyBytes] = {};
  uint8_t verify_pk_[kPublicKeyBytes] = {};
  KeyFingerprints fp_ = {};
};

}  // namespace p2b
