// Per-cluster coordinate sums in double, in a fixed order: points are bucketed
// by label (a counting sort, so each bucket lists its points by index), then
// each cluster's bucket is summed in that order. No per-thread partials, so
// the sums are the same bits for any thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace p2b::codebook {

struct ClusterSums {
  std::vector<double> sums;      // k x d
  std::vector<uint64_t> counts;  // k
};

void cluster_sums(const float* pts, std::size_t n, uint32_t d, const uint32_t* labels, uint32_t k,
                  unsigned threads, ClusterSums* out);

}  // namespace p2b::codebook
