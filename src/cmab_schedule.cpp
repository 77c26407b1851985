// P-FCB's release schedule and budget split (paper section 5.3). Pure
// functions: the agent, the simulator and the cross-protocol comparison all
// call these, so a schedule means the same thing everywhere.
#include <cmath>
#include <limits>

#include "p2b/cmab.hpp"

namespace p2b {

bool cmab_is_release_round(uint64_t t, uint64_t window_start, uint64_t window_stop, uint64_t tau) {
  return t >= window_start && t <= window_stop && t >= tau;
}

uint64_t cmab_first_tau(CmabSchedule schedule, uint64_t window_start) {
  switch (schedule) {
    case CmabSchedule::paper:
      return 1;
    case CmabSchedule::aligned:
      return window_start;
    case CmabSchedule::every_round:
      return 0;
  }
  return 1;
}

uint64_t cmab_next_tau(CmabSchedule schedule, uint64_t tau) {
  if (schedule == CmabSchedule::every_round) return 0;
  // Saturate rather than wrap: a wrapped tau would restart releases.
  if (tau > std::numeric_limits<uint64_t>::max() / 2) return std::numeric_limits<uint64_t>::max();
  return tau == 0 ? 1 : 2 * tau;
}

uint32_t cmab_release_count(CmabSchedule schedule, uint64_t window_start, uint64_t window_stop,
                            uint64_t horizon) {
  const uint64_t last = window_stop < horizon ? window_stop : horizon;
  if (window_start > last) return 0;
  if (schedule == CmabSchedule::every_round) {
    const uint64_t n = last - window_start + 1;
    return n > 0xFFFFFFFFULL ? 0xFFFFFFFFU : static_cast<uint32_t>(n);
  }
  uint32_t count = 0;
  uint64_t tau = cmab_first_tau(schedule, window_start);
  // Jump straight to the next round that can release: at most 64 doublings
  // plus the catch-up rounds, never a walk over the whole horizon.
  uint64_t t = window_start;
  while (t <= last) {
    if (t < tau) t = tau;
    if (t > last) break;
    ++count;
    tau = cmab_next_tau(schedule, tau);
    ++t;
  }
  return count;
}

namespace {

// 2^-e underflows to 0 long before e reaches int's range.
int capped_exponent(uint32_t z) {
  return z > 1100 ? 1100 : static_cast<int>(z);
}

double log_horizon(uint64_t horizon, CmabLogBase base) {
  const double ln_t = std::log(static_cast<double>(horizon));
  return base == CmabLogBase::two ? ln_t / std::log(2.0) : ln_t;
}

}  // namespace

double cmab_release_epsilon(double eps_total, uint64_t horizon, CmabLogBase base, uint32_t z) {
  return eps_total / (2.0 * log_horizon(horizon, base)) +
         eps_total * std::ldexp(1.0, -capped_exponent(z) - 1);
}

double cmab_paper_epsilon_sum(double eps_total, uint64_t horizon, CmabLogBase base, uint32_t z) {
  return static_cast<double>(z) * eps_total / (2.0 * log_horizon(horizon, base)) +
         0.5 * eps_total * (1.0 - std::ldexp(1.0, -capped_exponent(z)));
}

double cmab_noise_multiplier(double eps_release, double delta) {
  if (std::isinf(eps_release)) return 0.0;
  return std::sqrt(2.0 * std::log(1.25 / delta)) / eps_release;
}

}  // namespace p2b
