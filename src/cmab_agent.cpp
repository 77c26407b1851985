// The P-FCB agent: set-up, decisions and observations. Sharing (release,
// acceptance, accounting) lives in cmab_sharing.cpp.
#include <cmath>
#include <cstring>
#include <new>

#include "cmab_state.hpp"

namespace p2b {

namespace {

constexpr double kMaxMagnitude = 1e6;  // costs, rho, omega2: far above any sane value

std::size_t align_up(std::size_t n) {
  return (n + kArenaAlign - 1) / kArenaAlign * kArenaAlign;
}

bool finite_in(double v, double lo, double hi) {
  return std::isfinite(v) && v >= lo && v <= hi;
}

Status check_privacy(const CmabConfig& c) {
  if (std::isnan(c.epsilon) || c.epsilon < 0.0) return Status::bad_config;
  if (!(c.delta > 0.0 && c.delta < 1.0)) return Status::bad_config;
  if (!(c.delta_target > 0.0 && c.delta_target < 1.0)) return Status::bad_config;
  if (std::isnan(c.omega1) || c.omega1 < 0.0) return Status::bad_config;
  if (!finite_in(c.omega2, 0.0, kMaxMagnitude) || c.omega2 == 0.0) return Status::bad_config;
  if (c.agents == 0 || c.max_peers == 0 || c.max_peers > kCmabMaxPeers) return Status::bad_config;
  if (!c.deterministic && c.random.fill == nullptr) return Status::bad_config;
  return Status::ok;
}

Status check_schedule(const CmabConfig& c) {
  if (c.schedule != CmabSchedule::paper && c.schedule != CmabSchedule::aligned &&
      c.schedule != CmabSchedule::every_round) {
    return Status::bad_config;
  }
  if (c.log_base != CmabLogBase::two && c.log_base != CmabLogBase::natural) {
    return Status::bad_config;
  }
  if (c.horizon < 2 || c.window_start == 0 || c.window_stop < c.window_start) {
    return Status::bad_config;
  }
  return Status::ok;
}

Status check_config(const CmabConfig& c) {
  if (c.producers == 0 || c.producers > kCmabMaxProducers) return Status::bad_config;
  if (c.cost == nullptr || c.capacity == nullptr) return Status::null_pointer;
  uint32_t max_capacity = 0;
  for (uint32_t i = 0; i < c.producers; ++i) {
    if (!finite_in(c.cost[i], -kMaxMagnitude, kMaxMagnitude)) return Status::bad_config;
    if (c.capacity[i] == 0 || c.capacity[i] > kCmabMaxCapacity) return Status::bad_config;
    if (c.capacity[i] > max_capacity) max_capacity = c.capacity[i];
  }
  if (c.public_max_capacity != 0 &&
      (c.public_max_capacity < max_capacity || c.public_max_capacity > kCmabMaxCapacity)) {
    return Status::bad_config;
  }
  if (!finite_in(c.rho, 0.0, kMaxMagnitude) || c.rho == 0.0) return Status::bad_config;
  if (!finite_in(c.alpha, 0.0, 1.0) || !finite_in(c.quality_margin, 0.0, 1.0)) {
    return Status::bad_config;
  }
  if (!finite_in(c.ucb_scale, 0.0, kMaxMagnitude)) return Status::bad_config;
  const Status s = check_schedule(c);
  return is_error(s) ? s : check_privacy(c);
}

// One layout for footprint() and init(), so the footprint is exact.
std::size_t lay_out(const CmabConfig& c, CmabState* s) {
  const std::size_t m = c.producers;
  std::size_t at = align_up(sizeof(CmabState));
  auto take = [&at](std::size_t bytes) {
    const std::size_t here = at;
    at = align_up(at + bytes);
    return here;
  };
  CmabState layout;
  layout.cost = take(m * sizeof(double));
  layout.capacity = take(m * sizeof(uint32_t));
  layout.units_seen = take(m * sizeof(double));
  layout.good_seen = take(m * sizeof(double));
  layout.units_unsent = take(m * sizeof(double));
  layout.good_unsent = take(m * sizeof(double));
  layout.ucb = take(m * sizeof(double));
  layout.decision = take(m * sizeof(uint32_t));
  layout.order = take(m * sizeof(uint32_t));
  layout.last_release = take(c.max_peers * sizeof(uint32_t));
  layout.total = at;
  if (s != nullptr) {
    s->cost = layout.cost;
    s->capacity = layout.capacity;
    s->units_seen = layout.units_seen;
    s->good_seen = layout.good_seen;
    s->units_unsent = layout.units_unsent;
    s->good_unsent = layout.good_unsent;
    s->ucb = layout.ucb;
    s->decision = layout.decision;
    s->order = layout.order;
    s->last_release = layout.last_release;
    s->total = layout.total;
  }
  return layout.total;
}

Status live(const CmabAgent* a) {
  if (a == nullptr) return Status::null_pointer;
  return CmabAgent::check(a);
}

}  // namespace

Status CmabAgent::footprint(const CmabConfig& cfg, std::size_t* bytes) {
  if (bytes == nullptr) return Status::null_pointer;
  const Status st = check_config(cfg);
  if (is_error(st)) return st;
  *bytes = lay_out(cfg, nullptr);
  return Status::ok;
}

Status CmabAgent::init(void* mem, std::size_t len, const CmabConfig& cfg, CmabAgent** out) {
  if (mem == nullptr || out == nullptr) return Status::null_pointer;
  const Status st = check_config(cfg);
  if (is_error(st)) return st;
  if (reinterpret_cast<std::uintptr_t>(mem) % kArenaAlign != 0) return Status::arena_misaligned;
  if (len < lay_out(cfg, nullptr)) return Status::arena_too_small;

  std::memset(mem, 0, lay_out(cfg, nullptr));
  auto* s = new (mem) CmabState();
  lay_out(cfg, s);
  s->cfg = cfg;
  s->cfg.cost = nullptr;  // the arena keeps no caller address
  s->cfg.capacity = nullptr;
  const uint32_t m = cfg.producers;
  std::memcpy(s->block<double>(s->cost), cfg.cost, m * sizeof(double));
  std::memcpy(s->block<uint32_t>(s->capacity), cfg.capacity, m * sizeof(uint32_t));
  if (cfg.deterministic) {
    s->rng.init_seeded(cfg.seed);
  } else {
    s->rng.init_source(cfg.random);
  }
  s->tau = cmab_first_tau(cfg.schedule, cfg.window_start);
  s->magic = kCmabMagic;
  s->layout_version = kCmabLayoutVersion;
  *out = reinterpret_cast<CmabAgent*>(s);
  return Status::ok;
}

Status CmabAgent::check(const void* mem) {
  if (mem == nullptr) return Status::null_pointer;
  const auto* s = static_cast<const CmabState*>(mem);
  if (s->magic != kCmabMagic || s->layout_version != kCmabLayoutVersion) {
    return Status::not_initialized;
  }
  return Status::ok;
}

Status CmabAgent::decide(uint32_t* units, std::size_t m) {
  Status st = live(this);
  if (is_error(st)) return st;
  if (units == nullptr) return Status::null_pointer;
  CmabState& s = CmabState::of(this);
  if (m != s.cfg.producers) return Status::dimension_mismatch;
  uint32_t* decision = s.block<uint32_t>(s.decision);
  const uint64_t t = s.rounds + 1;
  if (t <= s.cfg.explore_rounds) {
    for (uint32_t i = 0; i < m; ++i) decision[i] = 1;
  } else {
    const double* seen = s.block<double>(s.units_seen);
    const double* good = s.block<double>(s.good_seen);
    double* ucb = s.block<double>(s.ucb);
    const double log_t = std::log(static_cast<double>(t));
    for (uint32_t i = 0; i < m; ++i) {
      // W = 0 only without exploration; then the estimate is 0 and the
      // radius is that of one unit, so the producer still gets tried.
      const double w = seen[i] > 0.0 ? seen[i] : 0.0;
      double q = w > 0.0 ? good[i] / w : 0.0;
      q = q < 0.0 ? 0.0 : (q > 1.0 ? 1.0 : q);
      ucb[i] = q + s.cfg.ucb_scale * std::sqrt(3.0 * log_t / (2.0 * (w > 1.0 ? w : 1.0)));
    }
    double capacity[kCmabMaxProducers];
    const uint32_t* cap = s.block<uint32_t>(s.capacity);
    for (uint32_t i = 0; i < m; ++i) capacity[i] = cap[i];
    CmabProblem p;
    p.m = s.cfg.producers;
    p.quality = ucb;
    p.cost = s.block<double>(s.cost);
    p.capacity = capacity;
    p.rho = s.cfg.rho;
    p.alpha = s.cfg.alpha + s.cfg.quality_margin;
    st = cmab_select(p, decision, s.block<uint32_t>(s.order));
    if (is_error(st)) return st;
  }
  std::memcpy(units, decision, m * sizeof(uint32_t));
  s.decided = true;
  return Status::ok;
}

Status CmabAgent::estimates(double* units_seen, double* quality, std::size_t m) const {
  const Status st = live(this);
  if (is_error(st)) return st;
  if (units_seen == nullptr && quality == nullptr) return Status::null_pointer;
  const CmabState& s = CmabState::of(this);
  if (m != s.cfg.producers) return Status::dimension_mismatch;
  const double* seen = s.block<double>(s.units_seen);
  const double* good = s.block<double>(s.good_seen);
  for (uint32_t i = 0; i < m; ++i) {
    if (units_seen != nullptr) units_seen[i] = seen[i];
    if (quality != nullptr) quality[i] = seen[i] > 0.0 ? good[i] / seen[i] : 0.0;
  }
  return Status::ok;
}

Status CmabAgent::round(uint64_t* t) const {
  const Status st = live(this);
  if (is_error(st)) return st;
  if (t == nullptr) return Status::null_pointer;
  *t = CmabState::of(this).rounds;
  return Status::ok;
}

}  // namespace p2b
