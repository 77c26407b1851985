// The results of p2b-sim --protocol fclub as tables: "runs" (one row per
// algorithm, d, epsilon and seed), "curves" (each run's cumulative regret
// every --every rounds) and "summary" (mean and standard deviation over
// seeds), with the CSV files' column names; and the summary as printed lines.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cli/result_table.hpp"
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

// {"runs", "curves", "summary"}; runs in the order given, summary groups in
// the order each (d, epsilon, algorithm) first appears.
tools::ResultTables result_tables(const Options& o, const std::vector<RunResult>& runs);

// The summary table as p2b-sim prints it: a header line and one per group.
std::vector<std::string> summary_lines(const tools::ResultTable& summary);

}  // namespace p2b::fclub_sim
