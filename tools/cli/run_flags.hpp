// The flags every simulator of p2b-sim spells the same way: --seeds, --threads,
// --out, --plot, --quiet (and --config, from tool_cli.hpp). Each simulator's
// Options holds one CommonRunOptions, so p2b-sim and p2b.simulate_* read the
// same fields under the same names.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace p2b::tools {

struct CommonRunOptions {
  uint32_t seeds = 1;    // independent repetitions, seeded seed, seed+1, ...
  uint64_t seed = 1;     // the first repetition's seed
  uint32_t threads = 2;  // worker threads; results do not depend on it
  std::string out;       // directory for the CSVs (and figures); empty: write nothing
  bool plot = false;     // also draw the simulator's figure into `out`
  bool quiet = false;    // no progress bar, no printed tables
};

// Adds the common flags to `app`, bound to `o` (whose values are the defaults
// shown by --help).
inline void add_common_run_flags(CLI::App& app, CommonRunOptions& o) {
  app.add_option("--seeds", o.seeds, "independent repetitions (seeds seed, seed+1, ...)")
      ->type_name("N")
      ->check(CLI::Range(1U, 1000000U))
      ->capture_default_str();
  app.add_option("--seed", o.seed, "the first repetition's seed")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--threads", o.threads, "worker threads (results do not depend on it)")
      ->type_name("N")
      ->check(CLI::Range(1U, 1024U))
      ->capture_default_str();
  app.add_option("--out", o.out, "directory for the result CSVs")
      ->type_name("DIR")
      ->capture_default_str();
  app.add_flag("--plot", o.plot, "also draw the figure into --out (needs python3-matplotlib)");
  app.add_flag("--quiet", o.quiet, "no progress bar and no printed tables");
}

}  // namespace p2b::tools
