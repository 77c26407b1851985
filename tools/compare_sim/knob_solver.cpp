#include "compare_sim/knob_solver.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "compare_sim/privacy_spend.hpp"
#include "fclub/fclub_config.hpp"

namespace p2b::compare_sim {

namespace {

// Knobs are searched on a log scale: spends span decades.
constexpr double kLowestKnob = 1e-6;
constexpr double kHighestKnob = 1e6;
constexpr int kMaxBisections = 200;

}  // namespace

double bisect_knob(const std::function<double(double)>& spend, double target, double lo,
                   double hi) {
  if (!(target > 0.0) || spend(lo) > target || spend(hi) < target) {
    throw std::domain_error("no knob in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                            "] spends epsilon " + std::to_string(target));
  }
  for (int i = 0; i < kMaxBisections; ++i) {
    const double mid = lo > 0.0 ? std::sqrt(lo * hi) : 0.5 * (lo + hi);
    const double s = spend(mid);
    if (std::fabs(s - target) <= target * kSpendTolerance / 100.0) return mid;
    (s < target ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

P2bKnob solve_p2b(double target, double delta, uint32_t reports, uint32_t min_threshold) {
  P2bKnob k;
  // p < 1: epsilon is unbounded as p -> 1.
  k.participation = bisect_knob([&](double p) { return p2b_user_spend(p, 0, reports).epsilon; },
                                target, 0.0, 1.0 - 1e-12);
  // The least l whose reports x exp(-l (1 - p)^2) is at most delta.
  const double q = 1.0 - k.participation;
  const double l = std::ceil(std::log(static_cast<double>(reports) / delta) / (q * q));
  if (!(l < 4e9)) throw std::domain_error("P2B's threshold for this spend exceeds 2^32");
  k.threshold = std::max(min_threshold, static_cast<uint32_t>(l));
  return k;
}

double solve_pfcb(double target, uint32_t steps, double delta) {
  return bisect_knob([&](double e) { return pfcb_user_spend(e, steps, delta).epsilon; }, target,
                     kLowestKnob, kHighestKnob);
}

double solve_fclub(const fclub::FclubConfig& cfg, double target, uint32_t steps, uint64_t nodes) {
  if (nodes == 0) throw std::domain_error("FCLUB released nothing: no knob sets its spend");
  return bisect_knob(
      [&](double e) {
        return fclub_user_spend(fclub_rho_per_record(cfg, e, nodes), steps, cfg.delta).epsilon;
      },
      target, kLowestKnob, kHighestKnob);
}

}  // namespace p2b::compare_sim
