// p2b-sim --protocol fclub as a library function: the experiment of
// `Options`, its results as tables, no terminal output and no files. The
// command line (fclub_main) and Python's p2b.simulate_fclub both call it.
#pragma once

#include <vector>

#include "cli/result_table.hpp"
#include "cli/run_hooks.hpp"
#include "fclub_sim/options.hpp"
#include "fclub_sim/run_table.hpp"

namespace p2b::fclub_sim {

// Every run of `o` (algorithm x d x epsilon x seed), in a fixed order that
// does not depend on o.run.threads. Says the setting (users, servers, wire
// sizes) through hooks.log and reports "fclub runs" progress in rounds.
// Throws std::invalid_argument with validate()'s message on invalid
// options, std::runtime_error on data errors (a bad --thetas file).
std::vector<RunResult> run_all(const Options& o, const tools::RunHooks& hooks);

// run_all's results as result_tables(): "runs", "curves", "summary".
tools::ResultTables run(const Options& o, const tools::RunHooks& hooks);

}  // namespace p2b::fclub_sim
