// The results of p2b-sim --protocol fclub: one row per (algorithm, d,
// epsilon, seed), a regret curve per row, and the summary table (the mean
// and standard deviation over seeds) printed and written as CSV.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fclub_sim/learner.hpp"
#include "fclub_sim/options.hpp"

namespace p2b::fclub_sim {

struct RunResult {
  std::string algorithm;
  uint32_t dim = 0;
  double epsilon = 0.0;  // 0: not private
  uint64_t seed = 0;
  double regret = 0.0;
  double us_per_round = 0.0;
  Comm comm;
  uint64_t bytes = 0;
  uint32_t clusters = 0;
  double epsilon_spent = 0.0;
  uint32_t distinct_thetas = 0;
  std::vector<std::pair<uint64_t, double>> curve;  // (round, cumulative regret)
};

// runs.csv and curves.csv in o.out_dir.
void write_runs(const Options& o, const std::vector<RunResult>& runs);
// Mean and standard deviation over seeds per (algorithm, d, epsilon), on
// stdout and in summary.csv.
void print_summary(const Options& o, const std::vector<RunResult>& runs);

}  // namespace p2b::fclub_sim
