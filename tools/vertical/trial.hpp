// One trial of p2b-sim --protocol vertical: the central model (all columns,
// unmasked), the federated one (O3M through the real masking and combining
// code), and partial models (the first columns only: what the active party
// could learn alone), all on the same world draws.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "p2b/shared_model.hpp"
#include "vertical/world.hpp"

namespace p2b::vertical {

struct TrialSpec {
  Policy policy = Policy::linucb;
  double beta = 0.5;  // LinUCB's alpha
  double v = 0.01;    // LinTS's scale
  double tie = 1e-9;
  uint64_t seed = 1;
  uint64_t rounds = 5000;
  std::vector<uint32_t> partial_columns;  // one partial model per entry
  uint64_t checkpoint_every = 50;
};

struct Series {
  std::string name;               // central, federated, partial-<cols>
  std::vector<double> regret_at;  // cumulative regret at each checkpoint
  double regret = 0.0;            // at the end
  double mean_reward = 0.0;       // over all rounds
};

struct TrialResult {
  std::vector<Series> series;
  std::vector<uint64_t> checkpoints;
  uint64_t same_actions = 0;      // rounds where federated took central's action
  int64_t first_divergence = -1;  // -1: none
  double theta_norm_gap = 0.0;    // | |theta~| - |theta^| | at the end
  double central_us = 0.0;        // per round: decide + reward
  double active_us = 0.0;         // combine + decide + reward
  double party_us = 0.0;          // one party's masking, mean over parties
  uint64_t bytes_per_party = 0;   // P2BV bytes per passive party per round
  // Mean realised reward of the one item index best over the run, picked in
  // hindsight: on multi-label data the majority label, the bar a context-free
  // recommender reaches.
  double best_fixed_item = 0.0;
};

// Runs every model for spec.rounds rounds of `world` (which it advances).
// Returns false with `err` on a setup failure.
bool run_trial(World& world, const TrialSpec& spec, TrialResult* out, std::string* err);

}  // namespace p2b::vertical
