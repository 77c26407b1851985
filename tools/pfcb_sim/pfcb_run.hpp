// p2b-sim --protocol pfcb as a library function: the experiment of
// `Options`, its results as tables, no terminal output and no files. The
// command line (pfcb_main) and Python's p2b.simulate_pfcb both call it.
#pragma once

#include <vector>

#include "cli/result_table.hpp"
#include "cli/run_hooks.hpp"
#include "pfcb_sim/options.hpp"
#include "pfcb_sim/run.hpp"

namespace p2b::pfcb_sim {

// Every run of `o` (dist x n x algorithm x epsilon x instance x run), in a
// fixed order that does not depend on o.run.threads. Says the setting, the
// release schedules and the wire sizes through hooks.log and reports
// "pfcb agent-rounds" progress. Throws std::invalid_argument with
// validate()'s message on invalid options.
std::vector<RunResult> run_all(const Options& o, const tools::RunHooks& hooks);

// run_all's results as result_tables(): "runs", "curves_runs", "curves",
// "summary", "ratios".
tools::ResultTables run(const Options& o, const tools::RunHooks& hooks);

}  // namespace p2b::pfcb_sim
