#include "codebook/cluster_sums.hpp"

#include <algorithm>

#include "codebook/parallel.hpp"

namespace p2b::codebook {

void cluster_sums(const float* pts, std::size_t n, uint32_t d, const uint32_t* labels, uint32_t k,
                  unsigned threads, ClusterSums* out) {
  out->sums.assign(static_cast<std::size_t>(k) * d, 0.0);
  out->counts.assign(k, 0);
  for (std::size_t p = 0; p < n; ++p) ++out->counts[labels[p]];
  std::vector<std::size_t> start(k + 1, 0);
  for (uint32_t c = 0; c < k; ++c) start[c + 1] = start[c] + out->counts[c];
  std::vector<uint32_t> order(n);
  std::vector<std::size_t> fill(start.begin(), start.end() - 1);
  for (std::size_t p = 0; p < n; ++p) order[fill[labels[p]]++] = static_cast<uint32_t>(p);

  constexpr uint32_t kCentresPerTask = 32;
  parallel_for((k + kCentresPerTask - 1) / kCentresPerTask, threads, [&](std::size_t task) {
    const auto first = static_cast<uint32_t>(task * kCentresPerTask);
    const uint32_t last = std::min(k, first + kCentresPerTask);
    for (uint32_t c = first; c < last; ++c) {
      double* s = &out->sums[static_cast<std::size_t>(c) * d];
      for (std::size_t i = start[c]; i < start[c + 1]; ++i) {
        const float* x = pts + static_cast<std::size_t>(order[i]) * d;
        for (uint32_t j = 0; j < d; ++j) s[j] += x[j];
      }
    }
  });
}

}  // namespace p2b::codebook
