// Agent life cycle, decisions and learning. Reporting lives in reporter.cpp,
// warm-start import/export in warm_start.cpp, save/restore in state_codec.cpp.
#include "p2b/agent.hpp"

#include <cmath>
#include <cstring>
#include <new>

#include "agent_internal.hpp"
#include "arena_layout.hpp"
#include "config_digest_hash.hpp"
#include "encoder.hpp"
#include "p2b/codebook_format.hpp"
#include "p2b/envelope.hpp"
#include "ridge_arm.hpp"

namespace p2b {

namespace {

bool in_range(double v, double lo, double hi) {
  return v >= lo && v <= hi;
}

ArenaLayout layout_for(const Config& cfg) {
  return compute_layout(cfg, sizeof(Agent), kPendingSlotBytes, kWindowEntryBytes, sizeof(Report));
}

// Digest of everything that gives saved state its meaning; restore refuses
// state saved under another configuration or codebook.
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

}  // namespace

Status validate_config(const Config& c) {
  if (c.dim == 0 || c.dim > kMaxDim) return Status::bad_config;
  if (c.n_actions == 0 || c.n_actions > kMaxActions) return Status::bad_config;
  if (c.policy != Policy::linucb && c.policy != Policy::lints) return Status::bad_config;
  if (!in_range(c.alpha, 0.0, 1e6) || !in_range(c.ts_scale, 0.0, 1e6)) return Status::bad_config;
  // lambda >= 1e-6 keeps every factor diagonal >= 1e-3 (see ridge_arm.hpp).
  if (!(c.ridge_lambda >= 1e-6) || !(c.ridge_lambda <= 1e6)) return Status::bad_config;
  if (c.round_digits == 0 || c.round_digits > kMaxDigits) return Status::bad_config;
  if (c.window == 0 || c.window > kMaxWindow) return Status::bad_config;
  if (!(c.participation > 0.0 && c.participation < 1.0)) return Status::bad_config;
  if (!in_range(c.neg_rate, 0.0, 1.0)) return Status::bad_config;
  if (!(c.epsilon_budget > 0.0)) return Status::bad_config;  // NaN fails too; +Inf means unlimited
  if (c.pending_capacity == 0 || c.pending_capacity > kMaxPending) return Status::bad_config;
  if (c.outbox_capacity == 0 || c.outbox_capacity > kMaxOutbox) return Status::bad_config;
  if (c.n_codes == 0 || c.n_codes > kMaxCodes) return Status::bad_config;
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

Status footprint(const Config& cfg, std::size_t* bytes) {
  if (bytes == nullptr) return Status::null_pointer;
  const Status st = validate_config(cfg);
  if (st != Status::ok) return st;
  *bytes = layout_for(cfg).total;
  return Status::ok;
}

Status Agent::init(void* mem, std::size_t len, const Config& cfg, Agent** out) {
  if (mem == nullptr || out == nullptr) return Status::null_pointer;
  Status st = validate_config(cfg);
  if (st != Status::ok) return st;
  const std::size_t n_centroid_values = static_cast<std::size_t>(cfg.n_codes) * cfg.dim;
  for (std::size_t i = 0; i < n_centroid_values; ++i) {
    if (!std::isfinite(cfg.centroids[i])) return Status::bad_codebook;
  }
  if (reinterpret_cast<uintptr_t>(mem) % kArenaAlign != 0) return Status::arena_misaligned;
  const ArenaLayout lay = layout_for(cfg);
  if (len < lay.total) return Status::arena_too_small;
  // Fingerprints first: a failing crypto port must leave `mem` untouched.
  KeyFingerprints fp{};
  if (key_fingerprint(cfg.crypto, cfg.shuffler_public_key, fp.shuffler) != Status::ok ||
      key_fingerprint(cfg.crypto, cfg.analyzer_public_key, fp.analyzer) != Status::ok ||
      key_fingerprint(cfg.crypto, cfg.analyzer_verify_key, fp.analyzer_verify) != Status::ok) {
    return Status::crypto_failure;
  }
  st = codebook_fingerprint(cfg.crypto, cfg.centroids, cfg.n_codes, cfg.dim, cfg.round_digits,
                            fp.codebook);
  if (st != Status::ok) return st;

  // Zeroing first makes saved state a pure function of the agent's history.
  std::memset(mem, 0, lay.total);
  Agent* ag = new (mem) Agent();  // placement only: no allocation
  ag->layout_version_ = kLayoutVersion;
  ag->dim_ = cfg.dim;
  ag->n_actions_ = cfg.n_actions;
  ag->policy_ = cfg.policy;
  ag->units_ = pow10_u32(cfg.round_digits);
  ag->window_ = cfg.window;
  ag->pending_capacity_ = cfg.pending_capacity;
  ag->outbox_capacity_ = cfg.outbox_capacity;
  ag->n_codes_ = cfg.n_codes;
  ag->alpha_ = cfg.alpha;
  ag->ridge_lambda_ = cfg.ridge_lambda;
  ag->ts_scale_ = cfg.ts_scale;
  ag->participation_ = cfg.participation;
  ag->neg_rate_ = cfg.neg_rate;
  ag->epsilon_budget_ = cfg.epsilon_budget;
  ag->epsilon_per_report_ = epsilon_per_report(cfg.participation);
  ag->config_digest_ = config_digest(cfg);
  if (cfg.deterministic) {
    ag->rng_.init_seeded(cfg.seed);
  } else {
    ag->rng_.init_source(cfg.random);
  }
  ag->next_id_ = 1;  // 0 is never a valid decision id
  ag->off_factor_ = lay.factor;
  ag->off_b_ = lay.b;
  ag->off_theta_ = lay.theta;
  ag->off_codebook_ = lay.codebook;
  ag->off_pending_ = lay.pending;
  ag->off_pending_x_ = lay.pending_x;
  ag->off_window_ = lay.window;
  ag->off_outbox_ = lay.outbox;
  ag->off_scratch_ = lay.scratch;
  ag->off_staging_ = lay.staging;
  ag->total_bytes_ = lay.total;
  ag->crypto_ = cfg.crypto;
  std::memcpy(ag->shuffler_pk_, cfg.shuffler_public_key, kPublicKeyBytes);
  std::memcpy(ag->analyzer_pk_, cfg.analyzer_public_key, kPublicKeyBytes);
  std::memcpy(ag->verify_pk_, cfg.analyzer_verify_key, kPublicKeyBytes);
  ag->fp_ = fp;

  for (uint32_t a = 0; a < cfg.n_actions; ++a) {
    arm_reset(ag->arm(a), static_cast<real>(cfg.ridge_lambda));
  }
  std::memcpy(ag->block<float>(lay.codebook), cfg.centroids, n_centroid_values * sizeof(float));
  ag->magic_ = kAgentMagic;
  *out = ag;
  return Status::ok;
}

Status Agent::check(const void* mem) {
  if (mem == nullptr) return Status::null_pointer;
  if (reinterpret_cast<uintptr_t>(mem) % kArenaAlign != 0) return Status::not_initialized;
  uint32_t head[2];
  std::memcpy(head, mem, sizeof head);  // magic_ and layout_version_ lead the object
  if (head[0] != kAgentMagic || head[1] != kLayoutVersion) return Status::not_initialized;
  return Status::ok;
}

ArmView Agent::arm(uint32_t a) const {
  const std::size_t d = dim_;
  return ArmView{block<real>(off_factor_) + a * d * d, block<real>(off_b_) + a * d,
                 block<real>(off_theta_) + a * d, dim_};
}

real* Agent::pending_x(uint32_t slot) const {
  return block<real>(off_pending_x_) + static_cast<std::size_t>(slot) * dim_;
}

Status Agent::check_input_context(const float* x, std::size_t len) const {
  if (len != dim_) return Status::dimension_mismatch;
  return check_context(x, dim_);
}

uint32_t Agent::encode_normalised(const real* xn) const {
  uint32_t units[kMaxDim];
  round_to_units(xn, dim_, units_, units);
  return nearest_code(units, dim_, units_, block<float>(off_codebook_), n_codes_);
}

Status Agent::choose(const real* xn, uint64_t rotation, uint32_t* action) {
  real z[kMaxDim];
  real mu[kMaxDim];
  real best = -INFINITY;
  uint32_t best_a = 0;
  // Scanning from a rotating start and keeping the first strict maximum breaks
  // exact ties (e.g. every arm of a fresh agent) round-robin, never toward arm 0.
  const uint32_t start = static_cast<uint32_t>(rotation % n_actions_);
  for (uint32_t j = 0; j < n_actions_; ++j) {
    const uint32_t a = (start + j) % n_actions_;
    real score = 0;
    if (policy_ == Policy::linucb) {
      real mean = 0;
      real width = 0;
      arm_mean_width(arm(a), xn, z, &mean, &width);
      score = mean + static_cast<real>(alpha_) * width;
    } else {
      const Status st = sample_parameters(a, mu, dim_);
      if (st != Status::ok) return st;
      for (uint32_t i = 0; i < dim_; ++i) score += mu[i] * xn[i];
    }
    if (score > best) {
      best = score;
      best_a = a;
    }
  }
  *action = best_a;
  return Status::ok;
}

Status Agent::decide(const float* x, std::size_t len, uint32_t* action, uint64_t* decision_id) {
  if (x == nullptr || action == nullptr || decision_id == nullptr) return Status::null_pointer;
  Status st = check_input_context(x, len);
  if (st != Status::ok) return st;
  real xn[kMaxDim];
  normalise_context(x, dim_, xn);
  uint32_t a = 0;
  // A random source failing halfway through LinTS draws would otherwise leave
  // a cached Gaussian behind; roll the generator back with everything else.
  const Rng::State rng_before = rng_.state();
  st = choose(xn, next_id_, &a);
  if (st != Status::ok) {
    rng_.set_state(rng_before);
    return st;
  }

  // The oldest pending decision is overwritten when the ring is full: apps
  // routinely never reward most recommendations, and that must not block.
  const uint64_t id = next_id_;
  const uint32_t slot_index = static_cast<uint32_t>(id % pending_capacity_);
  PendingSlot& slot = block<PendingSlot>(off_pending_)[slot_index];
  slot.id = id;
  slot.action = a;
  slot.code = encode_normalised(xn);
  slot.state = kSlotAwaiting;
  std::memcpy(pending_x(slot_index), xn, dim_ * sizeof(real));
  next_id_ = id + 1;
  *action = a;
  *decision_id = id;
  return Status::ok;
}

Status Agent::reward(uint64_t decision_id, float r) {
  if (!std::isfinite(r)) return Status::non_finite;
  if (!(r >= 0.0F && r <= 1.0F)) return Status::reward_out_of_range;
  if (decision_id == 0 || decision_id >= next_id_) return Status::unknown_decision;
  if (next_id_ - decision_id > pending_capacity_) return Status::expired_decision;
  const uint32_t slot_index = static_cast<uint32_t>(decision_id % pending_capacity_);
  PendingSlot& slot = block<PendingSlot>(off_pending_)[slot_index];
  if (slot.id != decision_id) return Status::expired_decision;
  if (slot.state == kSlotRewarded) return Status::already_rewarded;

  // Everything that can fail comes before the first change: the staged
  // update, then the window's randomness.
  real* staging = block<real>(off_scratch_);
  if (!arm_stage_update(arm(slot.action), pending_x(slot_index), static_cast<real>(r), staging)) {
    return Status::numeric_range;
  }
  const bool closes_window = window_len_ + 1 == window_;
  double u[3] = {0, 0, 0};
  if (closes_window) {
    const Status st = draw_window_randomness(u);
    if (st != Status::ok) return st;
  }
  arm_commit_update(arm(slot.action), staging);
  slot.state = kSlotRewarded;
  record_interaction(slot.code, slot.action, r);
  if (closes_window) close_window(u);
  return Status::ok;
}

Status Agent::learn(const float* x, std::size_t len, uint32_t action, float r) {
  if (x == nullptr) return Status::null_pointer;
  Status st = check_input_context(x, len);
  if (st != Status::ok) return st;
  if (action >= n_actions_) return Status::action_out_of_range;
  if (!std::isfinite(r)) return Status::non_finite;
  if (!(r >= 0.0F && r <= 1.0F)) return Status::reward_out_of_range;
  real xn[kMaxDim];
  normalise_context(x, dim_, xn);
  real* staging = block<real>(off_scratch_);
  if (!arm_stage_update(arm(action), xn, static_cast<real>(r), staging)) {
    return Status::numeric_range;
  }
  arm_commit_update(arm(action), staging);
  return Status::ok;
}

Status Agent::forget() {
  for (uint32_t a = 0; a < n_actions_; ++a) arm_reset(arm(a), static_cast<real>(ridge_lambda_));
  // Zeroed as init leaves them, so a saved state still depends only on the
  // history since the last forget; unsent reports describe forgotten data.
  std::memset(block<char>(off_pending_), 0, pending_capacity_ * sizeof(PendingSlot));
  std::memset(pending_x(0), 0, static_cast<std::size_t>(pending_capacity_) * dim_ * sizeof(real));
  std::memset(block<char>(off_window_), 0, window_ * sizeof(WindowEntry));
  std::memset(block<char>(off_outbox_), 0, outbox_capacity_ * sizeof(Report));
  window_len_ = 0;
  outbox_head_ = 0;
  outbox_len_ = 0;
  return Status::ok;
}

Status Agent::scores(const float* x, std::size_t len, float* mean, float* width, std::size_t cap) {
  if (x == nullptr || mean == nullptr || width == nullptr) return Status::null_pointer;
  Status st = check_input_context(x, len);
  if (st != Status::ok) return st;
  if (cap < n_actions_) return Status::buffer_too_small;
  real xn[kMaxDim];
  real z[kMaxDim];
  normalise_context(x, dim_, xn);
  for (uint32_t a = 0; a < n_actions_; ++a) {
    real m = 0;
    real w = 0;
    arm_mean_width(arm(a), xn, z, &m, &w);
    mean[a] = static_cast<float>(m);
    width[a] = static_cast<float>(w);
  }
  return Status::ok;
}

Status Agent::sample_parameters(uint32_t action, real* mu, std::size_t len) {
  if (mu == nullptr) return Status::null_pointer;
  if (action >= n_actions_) return Status::action_out_of_range;
  if (len != dim_) return Status::dimension_mismatch;
  // mu = theta + v L^-T xi with xi ~ N(0, I): its covariance is v^2 A^-1.
  real xi[kMaxDim];
  real u[kMaxDim];
  for (uint32_t i = 0; i < dim_; ++i) {
    double g = 0.0;
    const Status st = rng_.gaussian(&g);
    if (st != Status::ok) return st;
    xi[i] = static_cast<real>(g);
  }
  const ArmView av = arm(action);
  arm_unwhiten(av, xi, u);
  const real v = static_cast<real>(ts_scale_);
  for (uint32_t i = 0; i < dim_; ++i) mu[i] = av.theta[i] + v * u[i];
  return Status::ok;
}

Status Agent::encode(const float* x, std::size_t len, uint32_t* code) const {
  if (x == nullptr || code == nullptr) return Status::null_pointer;
  const Status st = check_input_context(x, len);
  if (st != Status::ok) return st;
  real xn[kMaxDim];
  normalise_context(x, dim_, xn);
  *code = encode_normalised(xn);
  return Status::ok;
}

Status Agent::centroid(uint32_t code, float* out, std::size_t len) const {
  if (out == nullptr) return Status::null_pointer;
  if (code >= n_codes_) return Status::code_out_of_range;
  if (len != dim_) return Status::dimension_mismatch;
  std::memcpy(out, block<float>(off_codebook_) + static_cast<std::size_t>(code) * dim_,
              dim_ * sizeof(float));
  return Status::ok;
}

}  // namespace p2b
