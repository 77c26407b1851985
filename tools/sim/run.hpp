// p2b-sim's P2B experiment as a library function: the one entry that
// p2b-sim (sim_main) and Python (p2b.simulate_p2b) both call.
#pragma once

#include "cli/result_table.hpp"
#include "cli/run_hooks.hpp"
#include "sim_options.hpp"

namespace p2b::sim {

// Runs every grid point for every seed and returns {"results": one row per
// (seed, point)}, results.csv's columns. Prints nothing and writes no file
// but the codebook cache (<o.run.out>/codebooks, when `out` is set): lines
// and progress go to `hooks`. Throws std::invalid_argument with validate()'s
// message on invalid options, std::runtime_error (or data::DataError,
// data::ArffError) when an input file is unusable.
tools::ResultTables run(const SimOptions& o, const tools::RunHooks& hooks);

}  // namespace p2b::sim
