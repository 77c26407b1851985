// Where p2b-sim's codebooks come from: a file given with --codebook, or one
// trained in process by the library behind p2b-codebook (tools/codebook),
// written as the same file p2b-codebook would write, and cached in the
// output directory, so a grid over d trains each codebook once.
#pragma once

#include <cstdint>
#include <vector>

#include "sim_options.hpp"

namespace p2b::sim {

struct Codebook {
  std::vector<float> centroids;  // k x d
  uint32_t k = 0;
};

Codebook codebook_for(const SimOptions& o, uint32_t dim);

}  // namespace p2b::sim
