// What run() keeps of each regret run, shared by its table and summary code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/result_table.hpp"
#include "vertical/options.hpp"
#include "vertical/trial.hpp"

namespace p2b::vertical {

struct Job {
  std::string policy;  // linucb | lints
  uint64_t seed = 0;
  TrialResult result;
};

// "results" and "curves" (regret_tables.cpp).
tools::ResultTables regret_tables(const Options& o, const std::vector<Job>& jobs);

// The printed summary: per policy, each model's regret against central's,
// how often federated matched central, and the per-round cost.
std::vector<std::string> summary_lines(const Options& o, const std::vector<Job>& jobs);

}  // namespace p2b::vertical
