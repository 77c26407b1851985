// p2b-sim --protocol compare as a library function: the CLI (compare_main.cpp)
// and Python's p2b.simulate_compare both call it.
#pragma once

#include <string>

#include "cli/result_table.hpp"
#include "cli/run_hooks.hpp"
#include "compare_sim/options.hpp"

namespace p2b::compare_sim {

struct CompareRun {
  // "runs": one row per run (env, protocol, knob, seed); "summary": the
  // seeds of each (env, protocol, knob or target) averaged, with the unit
  // and adversary of its epsilon.
  tools::ResultTables tables;
  // What results.json states beside the summary: the schedule, the
  // environments and each protocol's settings (a JSON object).
  std::string meta_json;
  // False when a --spends run's own ledger missed its target (said in a line).
  bool spends_ok = true;
};

// The whole experiment; no terminal output and no files (lines go to
// hooks.say, progress to hooks.report). Throws std::invalid_argument with
// validate()'s message on invalid options, std::runtime_error when the data
// set cannot be read.
CompareRun run_compare(const Options& o, const tools::RunHooks& hooks);

// run_compare()'s tables alone.
tools::ResultTables run(const Options& o, const tools::RunHooks& hooks);

// results.json: the meta object with "summary", the summary table's rows as
// objects (infinity written "inf", as in the CSV).
std::string results_json(const CompareRun& r);

}  // namespace p2b::compare_sim
