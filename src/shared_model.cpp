// The shared-parameter model: set-up, decisions and updates. Everything runs
// in the configured precision T through the same triangular kernels as the
// disjoint arms (triangular.hpp); inputs and outputs are double.
#include <cmath>
#include <cstring>
#include <new>

#include "p2b/envelope.hpp"
#include "ridge_arm.hpp"
#include "shared_state.hpp"
#include "triangular.hpp"

namespace p2b {

namespace {

// Items whitened side by side (triangular.hpp): enough independent chains
// to hide the division and multiply-subtract latencies.
constexpr uint32_t kItemGroup = 4;

bool in_range(double v, double lo, double hi) {
  return v >= lo && v <= hi;
}

std::size_t align_up(std::size_t n) {
  return (n + kArenaAlign - 1) / kArenaAlign * kArenaAlign;
}

std::size_t scalar_bytes(const SharedConfig& cfg) {
  return cfg.precision == Precision::f32 ? sizeof(float) : sizeof(double);
}

// Every context entry finite and within kMaxRawEntry: non_finite before
// numeric_range, so the status does not depend on where the faults sit.
Status check_values(const double* v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(v[i])) return Status::non_finite;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (std::fabs(v[i]) > kMaxRawEntry) return Status::numeric_range;
  }
  return Status::ok;
}

Status check_items(const SharedState& s, const double* items, std::size_t n_items,
                   std::size_t dim) {
  if (items == nullptr) return Status::null_pointer;
  if (dim != s.cfg.dim) return Status::dimension_mismatch;
  if (n_items == 0 || n_items > s.cfg.max_items) return Status::item_count;
  return check_values(items, n_items * dim);
}

template <typename T>
struct Model {
  SharedState& s;
  uint32_t d;

  explicit Model(SharedState& state) : s(state), d(state.cfg.dim) {}
  T* factor() const { return s.block<T>(s.factor); }
  T* b() const { return s.block<T>(s.vector_b); }
  T* theta() const { return s.block<T>(s.theta); }
  T* staging() const { return s.block<T>(s.staging); }
  // Scratch: kItemGroup item contexts, their whitened forms, one LinTS draw.
  T* x() const { return s.block<T>(s.scratch); }
  T* z() const { return s.block<T>(s.scratch) + static_cast<std::size_t>(kItemGroup) * d; }
  T* draw() const { return s.block<T>(s.scratch) + 2 * static_cast<std::size_t>(kItemGroup) * d; }
  T* context(uint32_t slot) const {
    return s.block<T>(s.contexts) + static_cast<std::size_t>(slot) * d;
  }

  void reset() const {
    const T diag = static_cast<T>(std::sqrt(s.cfg.ridge_lambda));
    T* L = factor();
    for (std::size_t i = 0; i < static_cast<std::size_t>(d) * d; ++i) L[i] = T(0);
    for (uint32_t i = 0; i < d; ++i) L[static_cast<std::size_t>(i) * d + i] = diag;
    for (uint32_t i = 0; i < d; ++i) b()[i] = theta()[i] = T(0);
  }

  void load(const double* src, T* dst) const {
    for (uint32_t i = 0; i < d; ++i) dst[i] = static_cast<T>(src[i]);
  }

  T dot(const T* a, const T* v) const {
    T acc = T(0);
    for (uint32_t i = 0; i < d; ++i) acc += a[i] * v[i];
    return acc;
  }

  void refresh_theta() const {
    T* work = staging();  // free between updates
    tri_whiten(factor(), d, b(), work);
    tri_unwhiten(factor(), d, work, theta());
  }

  void mean_width(const T* xv, T* mean, T* width) const {
    tri_whiten(factor(), d, xv, z());
    *mean = dot(theta(), xv);
    *width = std::sqrt(dot(z(), z()));
  }

  // mu = theta + v L^-T xi, into draw(); xi is taken from draw() itself.
  void sample_mean() const {
    T* xi = draw();
    tri_unwhiten(factor(), d, xi, z());
    const T v = static_cast<T>(s.cfg.ts_scale);
    for (uint32_t i = 0; i < d; ++i) xi[i] = theta()[i] + v * z()[i];
  }

  // LinUCB totals of items [i, i + kItemGroup) through one grouped solve;
  // each is bit for bit what mean_width gives for it alone.
  void ucb_group(const double* items, std::size_t first, double* totals) const {
    constexpr uint32_t G = kItemGroup;
    T* zi = z();  // interleaved: entry r of item g at r * G + g
    for (uint32_t g = 0; g < G; ++g) {
      load(items + (first + g) * d, x() + g * d);
      for (uint32_t r = 0; r < d; ++r) zi[r * G + g] = x()[g * d + r];
    }
    tri_whiten_interleaved<T, G>(factor(), d, zi);
    for (uint32_t g = 0; g < G; ++g) {
      const T mean = dot(theta(), x() + g * d);
      T w2 = T(0);
      for (uint32_t r = 0; r < d; ++r) w2 += zi[r * G + g] * zi[r * G + g];
      totals[first + g] = static_cast<double>(mean + static_cast<T>(s.cfg.alpha) * std::sqrt(w2));
    }
  }

  // Scores every item into `totals`.
  void score_all(const double* items, std::size_t n_items, double* totals) const {
    std::size_t first = 0;
    if (s.cfg.policy == Policy::linucb) {
      for (; first + kItemGroup <= n_items; first += kItemGroup) ucb_group(items, first, totals);
    }
    for (std::size_t i = first; i < n_items; ++i) {
      load(items + i * d, x());
      if (s.cfg.policy == Policy::lints) {
        totals[i] = static_cast<double>(dot(x(), draw()));
      } else {
        T mean = T(0);
        T width = T(0);
        mean_width(x(), &mean, &width);
        totals[i] = static_cast<double>(mean + static_cast<T>(s.cfg.alpha) * width);
      }
    }
  }

  // Scores every item into the totals block and returns the tie-ruled pick.
  uint32_t pick(const double* items, std::size_t n_items) const {
    double* totals = s.block<double>(s.totals);
    score_all(items, n_items, totals);
    double best = totals[0];
    for (std::size_t i = 1; i < n_items; ++i) best = totals[i] > best ? totals[i] : best;
    // Rotated and central runs round differently; a tolerance turns their
    // near-ties into one exact rule: the lowest index within it wins.
    const double floor = best - s.cfg.tie_rel_tol * std::fmax(1.0, std::fabs(best));
    for (std::size_t i = 0; i < n_items; ++i) {
      if (totals[i] >= floor) return static_cast<uint32_t>(i);
    }
    return 0;  // unreachable: best itself passes
  }

  // Stages A + x x^T and b + r x; false, with nothing changed, if the result
  // would leave the bounds restore accepts.
  bool stage(const T* xv, double r) const {
    T* l2 = staging();
    T* b2 = l2 + static_cast<std::size_t>(d) * d;
    T* w = b2 + d;
    const T rr = static_cast<T>(r);
    std::memcpy(l2, factor(), sizeof(T) * d * d);
    for (uint32_t i = 0; i < d; ++i) {
      b2[i] = b()[i] + rr * xv[i];
      w[i] = xv[i];
    }
    tri_rank1_update(l2, d, w);
    for (uint32_t j = 0; j < d; ++j) {
      for (uint32_t i = j; i < d; ++i) {
        const double v = static_cast<double>(l2[static_cast<std::size_t>(j) * d + i]);
        if (!factor_entry_ok_as<T>(v, i == j)) return false;
      }
      if (!vector_entry_ok_as<T>(static_cast<double>(b2[j]))) return false;
    }
    return true;
  }

  // Takes the staged factor and b; `updates` counts learning, so only
  // rewards and learns add to it.
  void take_staged() const {
    T* l2 = staging();
    std::memcpy(factor(), l2, sizeof(T) * d * d);
    std::memcpy(b(), l2 + static_cast<std::size_t>(d) * d, sizeof(T) * d);
    refresh_theta();
  }

  void commit() const {
    take_staged();
    ++s.updates;
  }
};

template <typename T>
Status decide_as(SharedState& s, const double* items, std::size_t n_items, const double* xi,
                 uint32_t* item, uint64_t* id) {
  const Model<T> m(s);
  if (s.cfg.policy == Policy::lints) {
    if (xi != nullptr) {
      m.load(xi, m.draw());
    } else {
      const Rng::State before = s.rng.state();
      for (uint32_t i = 0; i < m.d; ++i) {
        double g = 0.0;
        if (s.rng.gaussian(&g) != Status::ok) {
          s.rng.set_state(before);
          return Status::random_failure;
        }
        m.draw()[i] = static_cast<T>(g);
      }
    }
    m.sample_mean();
  }
  const uint32_t chosen = m.pick(items, n_items);
  const uint64_t new_id = s.next_id++;
  const auto slot = static_cast<uint32_t>(new_id % s.cfg.pending_capacity);
  m.load(items + static_cast<std::size_t>(chosen) * m.d, m.context(slot));
  s.slot_array()[slot] = SharedSlot{new_id, kSharedSlotAwaiting, chosen};
  *item = chosen;
  *id = new_id;
  return Status::ok;
}

template <typename T>
Status reward_as(SharedState& s, uint64_t id, double r) {
  const Model<T> m(s);
  if (id == 0 || id >= s.next_id) return Status::unknown_decision;
  const auto slot = static_cast<uint32_t>(id % s.cfg.pending_capacity);
  SharedSlot& sl = s.slot_array()[slot];
  if (sl.id != id) return Status::expired_decision;
  if (sl.state != kSharedSlotAwaiting) return Status::already_rewarded;
  if (!m.stage(m.context(slot), r)) return Status::numeric_range;
  m.commit();
  sl.state = kSharedSlotRewarded;
  return Status::ok;
}

template <typename T>
Status learn_as(SharedState& s, const double* x, double r) {
  const Model<T> m(s);
  m.load(x, m.x());
  if (!m.stage(m.x(), r)) return Status::numeric_range;
  m.commit();
  return Status::ok;
}

template <typename T>
void scores_as(const SharedState& cs, const double* items, std::size_t n_items, double* mean,
               double* width, double* total) {
  // Scoring writes only the scratch block, which no call keeps across calls.
  auto& s = const_cast<SharedState&>(cs);
  const Model<T> m(s);
  for (std::size_t i = 0; i < n_items; ++i) {
    m.load(items + i * m.d, m.x());
    T mu = T(0);
    T w = T(0);
    m.mean_width(m.x(), &mu, &w);
    if (mean != nullptr) mean[i] = static_cast<double>(mu);
    if (width != nullptr) width[i] = static_cast<double>(w);
    if (total != nullptr) total[i] = static_cast<double>(mu + static_cast<T>(s.cfg.alpha) * w);
  }
}

bool check_reward(double r) {
  return std::isfinite(r) && std::fabs(r) <= kMaxRawEntry;
}

}  // namespace

Status validate_shared_config(const SharedConfig& c) {
  if (c.dim == 0 || c.dim > kSharedMaxDim) return Status::bad_config;
  if (c.max_items == 0 || c.max_items > kSharedMaxItems) return Status::bad_config;
  if (c.pending_capacity == 0 || c.pending_capacity > kMaxPending) return Status::bad_config;
  if (c.policy != Policy::linucb && c.policy != Policy::lints) return Status::bad_config;
  if (c.precision != Precision::f32 && c.precision != Precision::f64) return Status::bad_config;
  if (!in_range(c.alpha, 0.0, 1e6) || !in_range(c.ts_scale, 0.0, 1e6)) return Status::bad_config;
  // lambda >= 1e-6 keeps every factor diagonal >= 1e-3 (ridge_arm.hpp).
  if (!in_range(c.ridge_lambda, 1e-6, 1e6)) return Status::bad_config;
  if (!in_range(c.tie_rel_tol, 0.0, 1e-2)) return Status::bad_config;
  if (!c.deterministic && c.random.fill == nullptr) return Status::bad_config;
  // A pinned key is only useful with a port that can check signatures by it.
  if (c.analyzer_verify_key != nullptr &&
      (c.crypto.hash == nullptr || c.crypto.verify == nullptr)) {
    return Status::bad_config;
  }
  return Status::ok;
}

void shared_layout(const SharedConfig& cfg, SharedState* s) {
  const std::size_t t = scalar_bytes(cfg);
  const std::size_t d = cfg.dim;
  std::size_t at = align_up(sizeof(SharedState));
  auto take = [&at](std::size_t bytes) {
    const std::size_t here = at;
    at = align_up(at + bytes);
    return here;
  };
  s->factor = take(t * d * d);
  s->vector_b = take(t * d);
  s->theta = take(t * d);
  s->staging = take(t * (d * d + 3 * d));
  s->scratch = take(t * (2 * kItemGroup + 1) * d);
  s->totals = take(sizeof(double) * cfg.max_items);
  s->contexts = take(t * d * cfg.pending_capacity);
  s->slots = take(sizeof(SharedSlot) * cfg.pending_capacity);
  s->total = at;
}

Status SharedModel::footprint(const SharedConfig& cfg, std::size_t* bytes) {
  if (bytes == nullptr) return Status::null_pointer;
  const Status st = validate_shared_config(cfg);
  if (st != Status::ok) return st;
  SharedState layout;
  shared_layout(cfg, &layout);
  *bytes = layout.total;
  return Status::ok;
}

Status SharedModel::init(void* mem, std::size_t len, const SharedConfig& cfg, SharedModel** out) {
  if (mem == nullptr || out == nullptr) return Status::null_pointer;
  const Status st = validate_shared_config(cfg);
  if (st != Status::ok) return st;
  if (reinterpret_cast<uintptr_t>(mem) % kArenaAlign != 0) return Status::arena_misaligned;
  SharedState layout;
  shared_layout(cfg, &layout);
  if (len < layout.total) return Status::arena_too_small;
  // The fingerprint comes first: a failing crypto port leaves the arena untouched.
  uint8_t verify_fp[kFingerprintBytes] = {};
  if (cfg.analyzer_verify_key != nullptr &&
      key_fingerprint(cfg.crypto, cfg.analyzer_verify_key, verify_fp) != Status::ok) {
    return Status::crypto_failure;
  }
  // Zeroing first makes saved state a pure function of the model's history.
  std::memset(mem, 0, layout.total);
  auto* s = new (mem) SharedState(layout);  // placement only: no allocation
  s->cfg = cfg;
  s->cfg.analyzer_verify_key = nullptr;
  if (cfg.analyzer_verify_key != nullptr) {
    s->has_verify_key = true;
    std::memcpy(s->verify_pk, cfg.analyzer_verify_key, kPublicKeyBytes);
    std::memcpy(s->verify_fp, verify_fp, kFingerprintBytes);
  }
  if (cfg.deterministic) {
    s->rng.init_seeded(cfg.seed);
  } else {
    s->rng.init_source(cfg.random);
  }
  if (cfg.precision == Precision::f32) {
    Model<float>(*s).reset();
  } else {
    Model<double>(*s).reset();
  }
  s->magic = kSharedMagic;
  s->layout_version = kSharedLayoutVersion;
  *out = reinterpret_cast<SharedModel*>(s);
  return Status::ok;
}

Status SharedModel::check(const void* mem) {
  if (mem == nullptr) return Status::null_pointer;
  if (reinterpret_cast<uintptr_t>(mem) % kArenaAlign != 0) return Status::not_initialized;
  uint32_t head[2];
  std::memcpy(head, mem, sizeof head);
  if (head[0] != kSharedMagic || head[1] != kSharedLayoutVersion) return Status::not_initialized;
  return Status::ok;
}

Status SharedModel::decide(const double* items, std::size_t n_items, std::size_t dim,
                           uint32_t* item, uint64_t* id) {
  return decide_with_draw(items, n_items, dim, nullptr, item, id);
}

Status SharedModel::decide_with_draw(const double* items, std::size_t n_items, std::size_t dim,
                                     const double* xi, uint32_t* item, uint64_t* id) {
  if (item == nullptr || id == nullptr) return Status::null_pointer;
  SharedState& s = SharedState::of(this);
  Status st = check_items(s, items, n_items, dim);
  if (st == Status::ok && xi != nullptr) st = check_values(xi, dim);
  if (st != Status::ok) return st;
  return s.cfg.precision == Precision::f32 ? decide_as<float>(s, items, n_items, xi, item, id)
                                           : decide_as<double>(s, items, n_items, xi, item, id);
}

Status SharedModel::reward(uint64_t id, double r) {
  SharedState& s = SharedState::of(this);
  if (!check_reward(r)) return Status::reward_out_of_range;
  return s.cfg.precision == Precision::f32 ? reward_as<float>(s, id, r)
                                           : reward_as<double>(s, id, r);
}

Status SharedModel::learn(const double* x, std::size_t dim, double r) {
  SharedState& s = SharedState::of(this);
  const Status st = check_items(s, x, 1, dim);
  if (st != Status::ok) return st;
  if (!check_reward(r)) return Status::reward_out_of_range;
  return s.cfg.precision == Precision::f32 ? learn_as<float>(s, x, r) : learn_as<double>(s, x, r);
}

Status SharedModel::scores(const double* items, std::size_t n_items, std::size_t dim, double* mean,
                           double* width, double* total) const {
  const SharedState& s = SharedState::of(this);
  const Status st = check_items(s, items, n_items, dim);
  if (st != Status::ok) return st;
  if (s.cfg.precision == Precision::f32) {
    scores_as<float>(s, items, n_items, mean, width, total);
  } else {
    scores_as<double>(s, items, n_items, mean, width, total);
  }
  return Status::ok;
}

Status SharedModel::theta(double* out, std::size_t dim) const {
  if (out == nullptr) return Status::null_pointer;
  const SharedState& s = SharedState::of(this);
  if (dim != s.cfg.dim) return Status::dimension_mismatch;
  for (uint32_t i = 0; i < s.cfg.dim; ++i) {
    out[i] = s.cfg.precision == Precision::f32 ? static_cast<double>(s.block<float>(s.theta)[i])
                                               : s.block<double>(s.theta)[i];
  }
  return Status::ok;
}

void shared_refresh_theta(SharedState& s) {
  if (s.cfg.precision == Precision::f32) {
    Model<float>(s).refresh_theta();
  } else {
    Model<double>(s).refresh_theta();
  }
}

void shared_commit_staged(SharedState& s) {
  if (s.cfg.precision == Precision::f32) {
    Model<float>(s).take_staged();
  } else {
    Model<double>(s).take_staged();
  }
}

uint64_t SharedModel::updates() const {
  return SharedState::of(this).updates;
}

uint64_t SharedModel::model_version() const {
  return SharedState::of(this).model_version;
}

}  // namespace p2b
