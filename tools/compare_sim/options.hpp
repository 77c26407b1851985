// The options of p2b-sim --protocol compare (docs/simulator.md#compare): one
// struct that the command line fills (parse_options) and Python's
// p2b.CompareOptions binds, field for field, under the long flags' names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/run_flags.hpp"

namespace p2b::compare_sim {

struct Options {
  // --seeds: every environment is drawn with seeds seed..seed+seeds-1.
  tools::CommonRunOptions run{5, 1, 2, "out/compare", false, false};
  std::vector<std::string> envs{"synthetic", "multilabel"};
  std::vector<std::string> protocols{"local", "p2b", "fclub", "pfcb", "o3m", "pooled"};
  uint32_t users = 2000;        // N, both cohorts
  double early_fraction = 0.7;  // the early cohort's share of N (P2B's paper: 0.7)
  uint32_t interactions = 10;   // T_u, steps per user
  // Synthetic environment (tools/sim/synthetic_env): d x |A| = 64, the FCLUB
  // wire's largest per-item dimension once contexts are one-hot by arm.
  uint32_t dim = 8;
  uint32_t actions = 8;
  std::string mapping = "linear";  // linear (the reference code's) or softmax (Eq. 4)
  double beta = 0.1;
  double noise_sd = 0.001;
  // Multi-label environment: 14 labels x 4 = 56 <= 64.
  std::string data;
  std::string labels = "auto";
  uint32_t ml_dim = 4;
  // LinUCB, the same for every protocol that runs the device agent.
  double alpha = 1.0;
  // P2B.
  std::vector<double> participations{0.1, 0.3, 0.5, 0.7, 0.9};
  uint32_t codes = 16;
  uint32_t threshold = 10;
  // FCLUB and the P-FCB-style deltas: the epsilon axis, all at one delta.
  std::vector<double> epsilons{0.5, 1, 2, 4, 8};
  double delta = 1e-5;
  // Equal privacy: targets of epsilon per user over the horizon, all at
  // --delta. Non-empty: P2B, FCLUB and P-FCB run at the knobs that spend
  // exactly these (knob_solver.hpp) instead of --participations / --epsilons.
  std::vector<double> spends;
  uint32_t servers = 4;
  double beta_scale = 0.25;
  double omega1 = 0.1;
  double omega2 = 10.0;
  // --no-nonprivate-variants clears it: also FCLUB-DC and P-FCB-style at
  // eps = infinity.
  bool nonprivate_variants = true;
};

// Empty when `o` is valid, else one line naming the field by its flag and the
// allowed range ("--users = 5: must be in [10, 1000000]").
std::string validate(const Options& o);

// Every long flag parse_options accepts ("--users", ...): the names Python's
// CompareOptions must have (--no-nonprivate-variants as no_nonprivate_variants).
std::vector<std::string> long_flags();

// -1: run; else the exit status (help, version, a usage error).
int parse_options(int argc, char** argv, Options* o);

}  // namespace p2b::compare_sim
