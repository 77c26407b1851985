// What an environment offers before any policy runs: the oracle's expected
// reward, the best single arm's and the average arm's, over a fixed seeded
// sample of contexts. Printed at start so that a loaded --weights file (or a
// mapping) that cannot produce the rewards one expects shows at once, before
// hours of simulation: e.g. an oracle below another implementation's learned
// rewards means the two environments differ.
#pragma once

#include <cstdint>

#include "environment.hpp"

namespace p2b::sim {

struct MappingFigures {
  uint64_t contexts = 0;
  double oracle = 0, oracle_se = 0;  // mean of the best arm's rbar per context
  double best_arm = 0;               // the best single arm's mean rbar
  uint32_t best_arm_index = 0;
  double mean_arm = 0;  // the average over arms: a uniformly random policy
};

// Steps of one user stream (user 0) of `env`, from their own seed; the
// figures use the noisy, clipped rbar the simulation draws rewards from.
MappingFigures mapping_figures(const Environment& env, uint64_t contexts, uint64_t seed);

}  // namespace p2b::sim
