// Where p2b-sim's codebooks come from: a file given with --codebook, or one
// trained in process by the library behind p2b-codebook (tools/codebook),
// written as the same file p2b-codebook would write, and cached in the
// output directory (when there is one), so a grid over d trains each
// codebook once. What training reports goes through the caller's hooks.
#pragma once

#include <cstdint>
#include <vector>

#include "cli/run_hooks.hpp"
#include "sim_options.hpp"

namespace p2b::sim {

struct Codebook {
  std::vector<float> centroids;  // k x d
  uint32_t k = 0;
};

Codebook codebook_for(const SimOptions& o, uint32_t dim, const tools::RunHooks& hooks);

// The same, reporting on the terminal (unless o.run.quiet), for callers
// that have no hooks of their own.
Codebook codebook_for(const SimOptions& o, uint32_t dim);

}  // namespace p2b::sim
