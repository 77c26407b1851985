// Every protocol's guarantee as one statement: (epsilon, delta) per USER over
// the whole horizon, so that p2b-sim --protocol compare can run them all at
// the same spend (docs/results.md, "Equal privacy", states each formula's
// source and whom each statement protects against).
//
// The protocols' own ledgers count other units: P2B one report, FCLUB one
// interaction (zCDP), P-FCB one interaction's share of a release (GDP). The
// functions below lift each to a user who interacts `steps` times.
#pragma once

#include <cstdint>

namespace p2b::fclub {
struct FclubConfig;
}

namespace p2b::compare_sim {

struct Spend {
  double epsilon = 0.0;
  double delta = 0.0;
};

// ---- zCDP (Bun and Steinke 2016) ----

// rho-zCDP implies (rho + 2 sqrt(rho ln(1/delta)), delta)-DP (Prop. 1.3).
double zcdp_to_epsilon(double rho, double delta);
// A group of k records of a rho-zCDP mechanism is k^2 rho-zCDP (Prop. 1.9):
// a user's `records` interactions seen as one group.
double zcdp_group_rho(double rho_per_record, uint32_t records);

// ---- P2B: pre-sampling, then (l, 0)-crowd blending (Gehrke et al. 2012) ----

// One report: epsilon = ln(p (2 - p) / (1 - p) + 1 - p) = -ln(1 - p) (P2B's
// Eq. 2), delta = exp(-l (1 - p)^2) (Eq. 3 with its Omega-constant taken as
// 1, as the simulator does). `reports` reports per user compose basically
// (Dwork and Roth 2014, Thm. 3.16): reports x epsilon, reports x delta.
// Against the analyzer (the shuffler trusted not to collude).
Spend p2b_user_spend(double participation, uint64_t threshold, uint32_t reports);
// The analyzer's central DP protects the public model further, not the
// analyzer's own view: the public model is post-processing of both the
// thresholded reports and the noisy release, so the better of the two holds.
// `central_rho`: the release's zCDP cost for one report (0: off).
Spend p2b_public_spend(const Spend& analyzer, double central_rho, double delta);

// ---- FCLUB: the tree privatizer's Gaussian releases, zCDP ledger ----

// The ledger charges its worst record `nodes` released nodes; each costs
// plan_cdp(cfg at `knob`).rho_per_node. The rho of one interaction.
double fclub_rho_per_record(const fclub::FclubConfig& cfg, double knob, uint64_t nodes);
// A user with `steps` interactions: group privacy over them.
Spend fclub_user_spend(double rho_per_record, uint32_t steps, double delta);

// ---- P-FCB-style: Gaussian postings, Gaussian DP (Dong, Roth and Su 2022) ----

// One interaction moves a posting by at most sqrt(2) in L2 (pfcb_run.cpp).
double pfcb_interaction_sensitivity();
// The noise of the z-th posting (z >= 1) at `knob` over `steps` rounds: the
// paper's split (cmab_release_epsilon) and classical Gaussian multiplier.
double pfcb_release_sigma(double knob, uint32_t steps, uint32_t z, double delta);
// mu of one posting that carries `interactions` of the user's interactions
// (sensitivity scales with them), and the composition of several: mu^2 adds
// (Cor. 3.3); epsilon at delta is gdp_epsilon (Cor. 2.13).
double pfcb_posting_mu2(double sigma, uint32_t interactions);
// The user's whole horizon under P-FCB's paper schedule over rounds
// 1..steps: the same for every user (the schedule reads no data).
Spend pfcb_user_spend(double knob, uint32_t steps, double delta);

}  // namespace p2b::compare_sim
