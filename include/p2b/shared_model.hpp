// The shared-parameter linear bandit: one ridge model theta over per-item
// contexts x_{t,i}, LinUCB or LinTS, with signed ("raw") contexts taken as
// they are: no simplex normalisation, no codebook, no P2B reporting. Vertical
// federation (O3M: the active party scores rotated contexts Qx), FCLUB and
// P-FCB build on it. Like Agent it lives in one caller-provided arena, never
// allocates, throws or uses RTTI, and leaves its state unchanged on any error.
#pragma once

#include <cstddef>
#include <cstdint>

#include "p2b/config.hpp"
#include "p2b/crypto.hpp"
#include "p2b/status.hpp"

namespace p2b {

constexpr uint32_t kSharedMaxDim = P2B_SHARED_MAX_DIM;
constexpr uint32_t kSharedMaxItems = P2B_SHARED_MAX_ITEMS;
// Largest |value| of a context entry or a reward. Far above any normalised
// feature, and low enough that no product in a score or update can overflow
// float after the factor bounds of ridge_arm.hpp.
constexpr double kMaxRawEntry = 1e6;
// The largest d a signed model bundle holds (p2b.proto ArmColumn).
constexpr uint32_t kSharedModelBundleMaxDim = 64;

// The arithmetic the model keeps its statistics and scores in. Vertical
// federation's active party uses f64: its actions match a central run's
// only when rounding stays below the tie tolerance.
enum class Precision : uint32_t { f32 = 0, f64 = 1 };

struct SharedConfig {
  uint32_t dim = 0;        // d
  uint32_t max_items = 0;  // most candidate items one decision may carry
  Policy policy = Policy::linucb;
  double alpha = 1.0;         // LinUCB: total = mean + alpha * width
  double ridge_lambda = 1.0;  // A starts at lambda * I (isotropic: rotations commute with it)
  double ts_scale = 0.1;      // LinTS: mu ~ N(theta, v^2 A^-1)
  // Scores within tie_rel_tol * max(1, |best|) of the best are tied, and the
  // lowest item index among them wins. 0 means exact ties only.
  double tie_rel_tol = 0.0;
  uint32_t pending_capacity = 16;  // decisions awaiting a reward
  Precision precision = Precision::f64;
  bool deterministic = false;  // seeded generator (tests, simulation) or `random`
  uint64_t seed = 0;
  RandomSource random{};

  // Signed warm starts (apply_model), as Config has them: the Ed25519 key
  // (kPublicKeyBytes, copied at init) the cluster's models must verify
  // under, and the port that verifies them (hash and verify are required
  // when a key is given). Without a key apply_model refuses every bundle. A
  // version below min_model_version is refused even on a fresh device.
  const uint8_t* analyzer_verify_key = nullptr;
  CryptoPort crypto{};
  uint64_t min_model_version = 0;
};

class SharedModel {
 public:
  // Exact arena byte count for `cfg` (checked: bad_config); the arena must be
  // kArenaAlign-aligned.
  static Status footprint(const SharedConfig& cfg, std::size_t* bytes);
  static Status init(void* mem, std::size_t len, const SharedConfig& cfg, SharedModel** out);
  // ok when `mem` holds a model set up by init (and not since clobbered).
  static Status check(const void* mem);

  // Scores `n_items` contexts (row-major, n_items x dim) and picks one. The
  // chosen context waits in the pending ring for its reward under `*id`.
  Status decide(const double* items, std::size_t n_items, std::size_t dim, uint32_t* item,
                uint64_t* id);
  // LinTS with the standard-normal draw `xi` (dim values) given instead of
  // drawn: lets a test feed a central model the rotated draw of a federated
  // one. LinUCB ignores `xi`.
  Status decide_with_draw(const double* items, std::size_t n_items, std::size_t dim,
                          const double* xi, uint32_t* item, uint64_t* id);
  Status reward(uint64_t id, double r);
  // Learns from a logged (context, reward): teacher-forced runs and replay.
  Status learn(const double* x, std::size_t dim, double r);
  // The LinUCB parts of every item's score: mean theta.x, width
  // sqrt(x^T A^-1 x) and total mean + alpha * width. Any output may be null.
  Status scores(const double* items, std::size_t n_items, std::size_t dim, double* mean,
                double* width, double* total) const;
  Status theta(double* out, std::size_t dim) const;
  uint64_t updates() const;  // rewards and learns applied

  // Verifies and applies a signed warm-start bundle ("P2BM", n_actions 1,
  // codebook_fp kSharedModelCodebookFp of p2b/codebook_format.hpp, kind 0): signature by the pinned
  // analyzer_verify_key, its signer, format, same d, and a version newer than
  // the last applied and not below cfg.min_model_version. Then A and b are
  // the bundle's (lambda I + S and u): what the model learned before is
  // replaced, as Agent::apply_model does; decisions still pending keep their
  // contexts, and their rewards and every later update add to the bundle's
  // statistics. All-or-nothing. apply_model knows no time and skips the
  // not-after check; apply_model_at refuses a bundle whose not-after time is
  // set and before `now_unix`.
  Status apply_model(const uint8_t* bundle, std::size_t len);
  Status apply_model_at(const uint8_t* bundle, std::size_t len, uint64_t now_unix);
  // The version of the bundle applied last (0: none); saved with the state.
  uint64_t model_version() const;

  // The state, MACed under a subkey of the app's 32-byte state key, as the
  // agent's; restore refuses any other key, any edit and another config.
  Status saved_size(std::size_t* bytes) const;
  Status save(const uint8_t* key, void* buf, std::size_t cap, std::size_t* written) const;
  Status restore(const uint8_t* key, const void* buf, std::size_t len);

  SharedModel() = delete;
  SharedModel(const SharedModel&) = delete;
  SharedModel& operator=(const SharedModel&) = delete;
};

}  // namespace p2b
