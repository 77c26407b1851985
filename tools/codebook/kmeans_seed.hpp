// Greedy k-means++ seeding (Arthur & Vassilvitskii 2007, with the greedy
// variant scikit-learn uses): at each step draw several candidates with
// probability proportional to their squared distance from the seeds so far,
// and keep the one that lowers the potential (sum of those distances) most.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace p2b::codebook {

struct SeedOptions {
  uint64_t seed = 0;
  unsigned threads = 1;
  uint32_t local_trials = 0;  // 0: 2 + floor(ln k), as scikit-learn
};

// k seeds (k x d, row-major), each a copy of one input point. Candidates are
// scored in parallel; each score is a sum in a fixed order, so the result is
// the same for any thread count. Needs 1 <= k and n >= 1.
std::vector<float> seed_kmeanspp(const float* pts, std::size_t n, uint32_t d, uint32_t k,
                                 const SeedOptions& o);

}  // namespace p2b::codebook
