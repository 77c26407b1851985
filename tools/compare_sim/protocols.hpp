// The protocols of p2b-sim --protocol compare, each on one World
// (world.hpp), each returning the same row: reward, privacy per user with its
// unit and adversary, and communication per user from real wire sizes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compare_sim/options.hpp"
#include "compare_sim/world.hpp"

namespace p2b::compare_sim {

struct Outcome {
  std::string protocol;    // local, p2b, fclub, pfcb, o3m, pooled, fclub-alone
  double knob = 0.0;       // p2b: p; fclub, pfcb: the configured epsilon (inf: non-private)
  uint32_t threshold = 0;  // p2b: the crowd threshold l it ran with
  // --spends: the target epsilon per user over the horizon (0: the knob axes).
  double target = 0.0;
  double reward_all = 0.0, reward_late = 0.0;  // mean reward per step
  // Privacy per user, at Options::delta where the mechanism allows (P2B:
  // pure epsilon plus its crowd delta). inf: nothing protects the data.
  double epsilon = 0.0, delta = 0.0;
  // The same spend as one statement for every protocol (privacy_spend.hpp):
  // (epsilon, delta) per user over the whole horizon, read from the
  // protocol's own ledger; and what the conversion predicts from the knob.
  double user_epsilon = 0.0, user_delta = 0.0, formula_epsilon = 0.0;
  // fclub: the nodes its ledger charged the worst record; pfcb: postings per
  // user; p2b: reports a user may send (one window).
  uint64_t ledger_units = 0;
  uint32_t merges = 0;  // fclub: local clusters joined across servers, over all phases
  // Per user, averaged over all N users, both directions.
  double msgs_up = 0.0, msgs_down = 0.0, bytes_up = 0.0, bytes_down = 0.0;
  // local: the oracle's reward per step (the best arm in expectation, every
  // step: a ceiling for all); p2b: reports kept after the threshold / reports; fclub: global
  // clusters at the end; pfcb: accepted / offered arm reports.
  double detail = 0.0;
  double check = 0.0;  // local: the oracle's reward; p2b: its own cold late reward (= local's late)
  double seconds = 0.0;
  uint64_t fallbacks = 0;  // pfcb: steps a user ran on its own statistics (import refused)
};

// What the unit and the adversary of each protocol's epsilon are.
const char* privacy_unit(const std::string& protocol);
const char* privacy_adversary(const std::string& protocol);

Outcome run_local(const Options& o, const World& w);
Outcome run_pooled(const Options& o, const World& w);
// `codebook` is k x d, row-major (sim/codebook_source).
Outcome run_p2b(const Options& o, const World& w, double participation,
                const std::vector<float>& codebook, uint32_t n_codes);
// P2B with crowd threshold `threshold` instead of Options::threshold.
Outcome run_p2b_at(const Options& o, const World& w, double participation, uint32_t threshold,
                   const std::vector<float>& codebook, uint32_t n_codes);
// P2B's non-private reference: late users warm from the raw tuples (no
// codes, no threshold) of the early users at p = 0.99. knob inf.
Outcome run_p2b_nonprivate(const Options& o, const World& w, const std::vector<float>& codebook,
                           uint32_t n_codes);
Outcome run_fclub(const Options& o, const World& w, double epsilon);
// FCLUB at the knob whose spend per user over the horizon, as its own ledger
// reports it, is `target` (a pilot run measures the ledger's nodes).
Outcome run_fclub_at_spend(const Options& o, const World& w, double target);
// FCLUB with every local server on its own (no uploads, no noise): what
// FCLUB's decisions would be if nothing from other servers ever reached them.
Outcome run_fclub_alone(const Options& o, const World& w);
Outcome run_pfcb(const Options& o, const World& w, double epsilon);
// O3M (seed 003): one LinUCB at an active party over contexts split between
// two parties and masked by a random rotation. No DP (epsilon inf).
Outcome run_o3m(const Options& o, const World& w);

// The P-FCB-style posting's length on the wire for `values_a` + `values_b`
// statistics (wire_sizes.cpp states how it is sized).
std::size_t pfcb_posting_bytes(std::size_t values_a, std::size_t values_b);

}  // namespace p2b::compare_sim
