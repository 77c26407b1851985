// The five protocols of p2b-sim --protocol compare, each on one World
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
  std::string protocol;  // local, p2b, fclub, pfcb, pooled
  double knob = 0.0;     // p2b: p; fclub, pfcb: the configured epsilon (inf: non-private)
  double reward_all = 0.0, reward_late = 0.0;  // mean reward per step
  // Privacy per user, at Options::delta where the mechanism allows (P2B:
  // pure epsilon plus its crowd delta). inf: nothing protects the data.
  double epsilon = 0.0, delta = 0.0;
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
Outcome run_fclub(const Options& o, const World& w, double epsilon);
Outcome run_pfcb(const Options& o, const World& w, double epsilon);

// The P-FCB-style posting's length on the wire for `values_a` + `values_b`
// statistics (wire_sizes.cpp states how it is sized).
std::size_t pfcb_posting_bytes(std::size_t values_a, std::size_t values_b);

}  // namespace p2b::compare_sim
