// The late cohort of the P2B experiments: users who join after the early
// users have shared, each on a fresh agent that starts cold or from a warm
// model. Every setting sees the same contexts and reward draws (common random
// numbers), so differences between settings are the models' alone.
#pragma once

#include <cstdint>
#include <vector>

#include "c_agent.hpp"
#include "synthetic_env.hpp"

namespace p2b::sim {

// A warm-start model: raw statistics (handed over with p2b_agent_import) or a
// signed bundle (verified and applied with p2b_agent_apply_model).
struct Model {
  std::vector<double> a, b;
  std::vector<uint8_t> signed_bundle;
};

struct Estimate {
  double mean;
  double stderr_;  // of the mean, over users x interactions
};

struct CohortSpec {
  uint32_t dim;
  uint32_t actions;
  uint32_t window;  // interactions per late user
  uint64_t seed;
  uint32_t users;
};

enum class Late { agent, oracle };

// Average reward of the cohort. `warm` (may be null) is loaded into every
// fresh agent; the oracle instead plays the best arm in expectation.
Estimate evaluate_late(CAgent& agent, const SyntheticEnv& env, const CohortSpec& c,
                       const Model* warm, Late who = Late::agent);

}  // namespace p2b::sim
