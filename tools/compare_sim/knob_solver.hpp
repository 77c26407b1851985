// Each protocol's knob for a target spend: the knob at which the protocol's
// (epsilon, delta) per user over the horizon (privacy_spend.hpp) is the
// target, found by bisection on the conversion. The runs then check the
// spend their own ledgers report against the target (compare_main.cpp).
#pragma once

#include <cstdint>
#include <functional>

namespace p2b::fclub {
struct FclubConfig;
}

namespace p2b::compare_sim {

// Relative tolerance every solved spend meets, and every run's ledger is
// held to against its target.
constexpr double kSpendTolerance = 1e-3;

// The knob in [lo, hi] where the non-decreasing `spend` reaches `target`,
// bisected until the spend is within kSpendTolerance / 100 of it. Throws
// std::domain_error when the target lies outside [spend(lo), spend(hi)].
double bisect_knob(const std::function<double(double)>& spend, double target, double lo, double hi);

struct P2bKnob {
  double participation = 0.0;  // p: sets epsilon
  uint32_t threshold = 0;      // l: sets delta, never below the configured one
};
// P2B at (target, delta) for a user sending `reports` reports.
P2bKnob solve_p2b(double target, double delta, uint32_t reports, uint32_t min_threshold);

// P-FCB-style's configured epsilon for `target` over `steps` rounds.
double solve_pfcb(double target, uint32_t steps, double delta);

// FCLUB's configured epsilon for `target`, given the nodes its ledger
// charges the worst record (a pilot run measures them: how deep the trees
// grow depends on the run, so the count is the run's, not the formula's).
double solve_fclub(const fclub::FclubConfig& cfg, double target, uint32_t steps, uint64_t nodes);

}  // namespace p2b::compare_sim
