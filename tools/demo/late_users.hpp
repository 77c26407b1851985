// p2b-demo's late users and what it prints at the end: late users on fresh
// agents start cold, warm from the private (P2B) model or warm from the
// non-private baseline, beside the oracle; then the reports' path through
// the services, the privacy figure and the reward table (also results.csv).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "demo_options.hpp"
#include "demo_services.hpp"
#include "sim/c_agent.hpp"
#include "sim/late_cohort.hpp"
#include "sim/synthetic_env.hpp"

namespace p2b::demo {

struct LateRewards {
  uint32_t users = 0;  // 3/7 of the early users, at least 1
  sim::Estimate cold{}, warm_private{}, warm_nonprivate{}, oracle{};
};

// A model that is empty (no batch reached it) leaves its devices cold.
LateRewards evaluate_late_users(const Options& o, sim::CAgent& device, const sim::SyntheticEnv& env,
                                const sim::Model& private_model, const sim::Model& raw_model);

struct DemoSummary {
  std::size_t sent = 0;  // envelopes the early users sealed
  BatchFigures batch;
  std::size_t bundle_bytes = 0;  // the private model's signed bundle
  LateRewards late;
};

// Prints the summary and the reward table, and writes the table to
// <out>/results.csv (setting,reward,stderr).
void report(const Options& o, const std::filesystem::path& out, const DemoSummary& s);

}  // namespace p2b::demo
