// p2b-sim --protocol vertical as a library function: the CLI
// (vertical_main.cpp) and Python's p2b.simulate_vertical both call run().
#pragma once

#include "cli/result_table.hpp"
#include "cli/run_hooks.hpp"
#include "vertical/options.hpp"

namespace p2b::vertical {

// The regret runs ("results": one row per policy, seed and model; "curves":
// mean and sd of each model's cumulative regret at 100 checkpoints), or with
// o.cost the cost grid ("cost": time and bytes per decision per (d, K)).
// No terminal output and no files: lines go to hooks.say, progress to
// hooks.report. Throws std::invalid_argument with validate()'s message on
// invalid options, std::runtime_error when a data set cannot be read.
tools::ResultTables run(const Options& o, const tools::RunHooks& hooks);

// The cost grid alone (cost_grid.cpp); run() calls it when o.cost is set.
tools::ResultTables run_cost_grid(const Options& o, const tools::RunHooks& hooks);

}  // namespace p2b::vertical
