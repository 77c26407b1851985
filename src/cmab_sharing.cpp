// P-FCB's sharing: the release at the end of a scheduled round (Eqs. 10-11
// with the section 5.3 budget split), the selective acceptance of others'
// shares (Procedure 1), and the accountant.
#include <cmath>
#include <cstring>
#include <limits>

#include "cmab_state.hpp"

namespace p2b {

namespace {

Status live(const CmabAgent* a) {
  if (a == nullptr) return Status::null_pointer;
  return CmabAgent::check(a);
}

// Post-processing of the noisy value: snapping to the integer grid keeps the
// float draw's low bits on the device (Mironov 2012); clamping keeps it in
// the format's range.
int32_t snap(double v) {
  constexpr double kLo = -2147483647.0;
  constexpr double kHi = 2147483647.0;
  if (!(v > kLo)) return static_cast<int32_t>(kLo);
  if (v > kHi) return static_cast<int32_t>(kHi);
  return static_cast<int32_t>(std::nearbyint(v));
}

bool finite_budget(const CmabConfig& c) {
  return std::isfinite(c.epsilon);
}

// Whether release z fits the budget under the paper's own rule
// (sum_{z' <= z} eps_z' <= eps): the hard stop.
bool release_fits(const CmabConfig& c, uint32_t z) {
  if (c.epsilon == 0.0) return false;
  if (!finite_budget(c)) return true;
  const double spent = cmab_paper_epsilon_sum(c.epsilon, c.horizon, c.log_base, z);
  return spent <= c.epsilon * (1.0 + 1e-12);
}

// Draws the z-th release into `out` without touching the agent's counts, so
// a failing random source leaves the state as it was.
Status draw_release(CmabState& s, uint32_t z, CmabShare* out) {
  const CmabConfig& c = s.cfg;
  const double eps_z = finite_budget(c) ? cmab_release_epsilon(c.epsilon, c.horizon, c.log_base, z)
                                        : std::numeric_limits<double>::infinity();
  const double multiplier = cmab_noise_multiplier(eps_z, c.delta);
  const double* w = s.block<double>(s.units_unsent);
  const double* y = s.block<double>(s.good_unsent);
  Rng rng = s.rng;
  for (uint32_t i = 0; i < c.producers; ++i) {
    const double sigma = multiplier * cmab_noise_sensitivity(s, i);
    double nw = 0.0;
    double ny = 0.0;
    if (sigma > 0.0) {
      Status st = rng.gaussian(&nw);
      if (is_error(st)) return st;
      st = rng.gaussian(&ny);
      if (is_error(st)) return st;
    }
    out->w_noisy[i] = snap(w[i] + sigma * nw);
    out->y_noisy[i] = snap(y[i] + sigma * ny);
  }
  out->producers = c.producers;
  out->release = z;
  out->round = s.rounds + 1;
  out->release_epsilon = eps_z;
  s.rng = rng;
  return Status::ok;
}

}  // namespace

double cmab_noise_sensitivity(const CmabState& s, uint32_t i) {
  if (s.cfg.public_max_capacity != 0) return s.cfg.public_max_capacity;
  return s.block<uint32_t>(s.capacity)[i];
}

Status CmabAgent::observe(const uint32_t* good, std::size_t m) {
  Status st = live(this);
  if (is_error(st)) return st;
  if (good == nullptr) return Status::null_pointer;
  CmabState& s = CmabState::of(this);
  if (m != s.cfg.producers) return Status::dimension_mismatch;
  if (!s.decided) return Status::unknown_decision;
  const uint32_t* units = s.block<uint32_t>(s.decision);
  for (uint32_t i = 0; i < m; ++i) {
    if (good[i] > units[i]) return Status::reward_out_of_range;
  }
  const uint64_t t = s.rounds + 1;
  const bool scheduled = cmab_is_release_round(t, s.cfg.window_start, s.cfg.window_stop, s.tau);
  const bool releases = scheduled && !s.budget_stopped && release_fits(s.cfg, s.releases + 1);

  double* w = s.block<double>(s.units_unsent);
  double* y = s.block<double>(s.good_unsent);
  // The round's own counts join the increment before it is released.
  for (uint32_t i = 0; i < m; ++i) {
    w[i] += units[i];
    y[i] += good[i];
  }
  if (releases) {
    CmabShare share;
    st = draw_release(s, s.releases + 1, &share);
    if (is_error(st)) {
      for (uint32_t i = 0; i < m; ++i) {
        w[i] -= units[i];  // exact: counts are integers far below 2^53
        y[i] -= good[i];
      }
      return st;
    }
    if (s.share_waiting) ++s.shares_overwritten;
    s.pending = share;
    s.share_waiting = true;
    ++s.releases;
    for (uint32_t i = 0; i < m; ++i) {
      w[i] = 0.0;
      y[i] = 0.0;
    }
  } else if (scheduled && s.cfg.epsilon > 0.0) {
    s.budget_stopped = true;
  }
  if (scheduled) s.tau = cmab_next_tau(s.cfg.schedule, s.tau);
  double* seen = s.block<double>(s.units_seen);
  double* good_seen = s.block<double>(s.good_seen);
  for (uint32_t i = 0; i < m; ++i) {
    seen[i] += units[i];
    good_seen[i] += good[i];
  }
  s.rounds = t;
  s.decided = false;
  return Status::ok;
}

Status CmabAgent::poll_share(CmabShare* out) {
  const Status st = live(this);
  if (is_error(st)) return st;
  if (out == nullptr) return Status::null_pointer;
  CmabState& s = CmabState::of(this);
  if (!s.share_waiting) return s.budget_stopped ? Status::budget_exhausted : Status::no_report;
  *out = s.pending;
  s.share_waiting = false;
  return Status::ok;
}

Status CmabAgent::poll_share_bytes(uint8_t* out, std::size_t cap, std::size_t* written) {
  const Status st = live(this);
  if (is_error(st)) return st;
  if (out == nullptr || written == nullptr) return Status::null_pointer;
  CmabState& s = CmabState::of(this);
  if (!s.share_waiting) return s.budget_stopped ? Status::budget_exhausted : Status::no_report;
  const Status enc = cmab_share_encode(s.pending, out, cap, written);
  if (enc == Status::ok) s.share_waiting = false;
  return enc;
}

Status CmabAgent::apply_share_bytes(uint32_t sender, const uint8_t* in, std::size_t len,
                                    CmabApplyResult* result) {
  const Status st = live(this);
  if (is_error(st)) return st;
  CmabShare share;
  const Status dec = cmab_share_decode(in, len, &share);
  if (is_error(dec)) return dec;
  return apply_share(sender, share, result);
}

Status CmabAgent::apply_share(uint32_t sender, const CmabShare& share, CmabApplyResult* result) {
  const Status st = live(this);
  if (is_error(st)) return st;
  CmabState& s = CmabState::of(this);
  const uint32_t m = s.cfg.producers;
  if (sender >= s.cfg.max_peers) return Status::action_out_of_range;
  if (share.producers != m) return Status::dimension_mismatch;
  if (share.release == 0 || share.round == 0) return Status::malformed_input;
  if (std::isnan(share.release_epsilon) || share.release_epsilon < 0.0) return Status::non_finite;
  uint32_t* last = s.block<uint32_t>(s.last_release);
  if (share.release <= last[sender]) return Status::replayed;

  double* seen = s.block<double>(s.units_seen);
  double* good = s.block<double>(s.good_seen);
  const double n_t = static_cast<double>(s.cfg.agents) * static_cast<double>(s.rounds + 1);
  const double log_nt = std::log(n_t);
  CmabApplyResult r;
  for (uint32_t i = 0; i < m; ++i) {
    const double wn = share.w_noisy[i];
    const double yn = share.y_noisy[i];
    // A report with no units (or noise that made it negative) carries no
    // quality estimate, and adding it could drive W below zero.
    bool accept = wn > 0.0 && yn >= 0.0;
    if (accept && std::isfinite(s.cfg.omega1)) {
      const double w = seen[i] > 1.0 ? seen[i] : 1.0;
      const double q = seen[i] > 0.0 ? good[i] / seen[i] : 0.0;
      const double radius = s.cfg.omega1 * std::sqrt(3.0 * log_nt / (2.0 * w));
      const double reported = yn / wn;
      accept = reported >= q - radius && reported <= q + radius;
    }
    if (accept) {
      seen[i] += s.cfg.omega2 * wn;
      good[i] += s.cfg.omega2 * yn;
      ++r.accepted;
    } else {
      ++r.rejected;
    }
  }
  last[sender] = share.release;
  s.reports_accepted += r.accepted;
  s.reports_rejected += r.rejected;
  if (result != nullptr) *result = r;
  return Status::ok;
}

Status CmabAgent::privacy(CmabPrivacy* out) const {
  const Status st = live(this);
  if (is_error(st)) return st;
  if (out == nullptr) return Status::null_pointer;
  const CmabState& s = CmabState::of(this);
  const CmabConfig& c = s.cfg;
  CmabPrivacy p;
  p.releases = s.releases;
  p.delta_target = c.delta_target;
  if (s.releases == 0) {
    *out = p;
    return Status::ok;
  }
  if (!finite_budget(c)) {
    const double inf = std::numeric_limits<double>::infinity();
    p.paper_epsilon = p.basic_epsilon = inf;
    p.element_mu = p.sequential_mu = p.vector_mu = inf;
    p.element_epsilon = p.sequential_epsilon = p.vector_epsilon = inf;
    p.paper_delta = p.basic_delta = 0.0;
    *out = p;
    return Status::ok;
  }
  double sum_mu2 = 0.0;
  double worst_mu = 0.0;
  for (uint32_t z = 1; z <= s.releases; ++z) {
    const double eps_z = cmab_release_epsilon(c.epsilon, c.horizon, c.log_base, z);
    // Both w~ and y~ move by up to the sensitivity: L2 sqrt(2) of it, so
    // mu = sqrt(2) / multiplier whatever the capacity.
    const double mu = std::sqrt(2.0) / cmab_noise_multiplier(eps_z, c.delta);
    sum_mu2 += mu * mu;
    if (mu > worst_mu) worst_mu = mu;
  }
  p.paper_epsilon = cmab_paper_epsilon_sum(c.epsilon, c.horizon, c.log_base, s.releases);
  p.paper_delta = c.delta;
  p.basic_epsilon = 2.0 * p.paper_epsilon;
  p.basic_delta = 2.0 * s.releases * c.delta;
  p.element_mu = worst_mu;
  p.element_epsilon = gdp_epsilon(worst_mu, c.delta_target);
  p.sequential_mu = std::sqrt(sum_mu2);
  p.sequential_epsilon = gdp_epsilon(p.sequential_mu, c.delta_target);
  p.vector_mu = worst_mu * std::sqrt(static_cast<double>(c.producers));
  p.vector_epsilon = gdp_epsilon(p.vector_mu, c.delta_target);
  *out = p;
  return Status::ok;
}

}  // namespace p2b
