// One point of the paper's experiments (section 5): early users run cold
// local agents and share through P2B; late users then start cold, warm from a
// non-private model (raw contexts of the same sampled tuples) or warm from the
// private model (encoded, shuffled, thresholded). Agents are the device
// library through its C API; the server side is the services' own code.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "environment.hpp"

namespace p2b::sim {

// paper:   the reference code's choices (docs/simulator.md): the private
//          side's context is the scalar code (1-D), and all late users of a
//          warm setting share one agent that keeps learning.
// default: the analyzer decodes codes to centroids (d-dimensional model) and
//          every late user gets their own copy of the warm model.
enum class Mode { paper, standard };

struct PointSpec {
  Mode mode = Mode::standard;
  uint64_t early_users = 10000;  // u: users who may share
  double early_fraction = 0.7;   // population = u / early_fraction
  uint32_t interactions = 10;    // t, also the reporting window
  uint32_t digits = 1;           // q
  double participation = 0.5;    // p
  double neg_rate = 0.05;
  double alpha = 1.0;
  uint32_t threshold = 10;  // l
  bool crypto = true;       // false: --no-crypto, reports skip sealing
  // The analyzer's central DP on the private model (0: off); the horizon
  // sets the tree's levels, hence sigma, as in a deployment.
  double central_epsilon = 0.0;
  double central_delta = 1e-6;
  uint64_t central_horizon = uint64_t{1} << 20;
  uint64_t central_release = 0;  // which release (1..horizon); 0: the noisiest one
  uint64_t seed = 1;
  unsigned threads = 2;
};

struct Estimate {
  double mean = 0;
  double stderr_ = 0;  // over users (user means are independent)
};

struct PointResult {
  Estimate cold, warm_nonprivate, warm_private;
  // The early (sharing) users' own reward: their agents run cold, so this is
  // what they earn while they report (p2b-sim --protocol compare counts it).
  Estimate early;
  double oracle = 0;  // the action best in expectation, same late users
  // The single arm best in expectation over the late users, chosen in
  // hindsight (a ceiling for every context-free policy), and the arm most
  // often rewarded in expectation over the EARLY users' steps, scored on the
  // late users (for labelled data: the majority-label baseline).
  double best_fixed_arm = 0;
  uint32_t best_fixed_arm_index = 0;
  double majority_arm = 0;
  uint32_t majority_arm_index = 0;
  // Whether each warm model exists: a device that received none runs cold,
  // and its row is then the cold row (see docs/simulator.md).
  bool nonprivate_model = false, private_model = false;
  uint64_t population = 0, late_users = 0;
  uint64_t reports = 0, kept = 0;  // shared tuples; after thresholding
  uint32_t codes_reported = 0, codes_released = 0;
  uint64_t smallest_released_crowd = 0;  // the l actually achieved
  double epsilon_per_user = 0;           // m * epsilon(p), m = windows closed
  double delta_indicative = 0;           // exp(-l_achieved (1-p)^2), constant 1
  double central_sigma = 0;              // per tree node and coordinate (0: off)
  uint32_t central_nodes = 0;            // nodes summed in the simulated release
  double seconds_early = 0, seconds_server = 0, seconds_late = 0;
  // Bytes of the signed private-model bundle each late device downloads (0
  // without crypto or without a model): the download side of P2B's traffic.
  uint64_t model_bundle_bytes = 0;
};

using Progress = std::function<void(const char* stage, double done, double total)>;

// `codebook` is k x env.dim(), row-major, rows on the simplex.
PointResult run_point(const PointSpec& spec, const Environment& env,
                      const std::vector<float>& codebook, uint32_t n_codes,
                      const Progress& progress = {});

}  // namespace p2b::sim
