#include "codebook/cluster_stats.hpp"

#include <algorithm>
#include <numeric>

#include "codebook/distance.hpp"
#include "codebook/kmeans_lloyd.hpp"
#include "codebook/parallel.hpp"

namespace p2b::codebook {

ClusterStats stats_from_labels(const float* pts, std::size_t n, uint32_t d,
                               const std::vector<float>& centroids,
                               const std::vector<uint32_t>& labels, unsigned threads) {
  ClusterStats s;
  const auto k = static_cast<uint32_t>(centroids.size() / d);
  s.inertia = labelled_inertia(pts, n, d, centroids.data(), labels.data(), threads);
  s.sizes.assign(k, 0);
  for (std::size_t p = 0; p < n; ++p) ++s.sizes[labels[p]];
  const auto [lo, hi] = std::minmax_element(s.sizes.begin(), s.sizes.end());
  s.smallest = *lo;
  s.largest = *hi;
  s.smallest_code = static_cast<uint32_t>(lo - s.sizes.begin());
  s.largest_code = static_cast<uint32_t>(hi - s.sizes.begin());
  return s;
}

ClusterStats evaluate(const float* pts, std::size_t n, uint32_t d,
                      const std::vector<float>& centroids, unsigned threads) {
  const auto k = static_cast<uint32_t>(centroids.size() / d);
  const std::vector<float> t = transpose_centres(centroids, k, d);
  std::vector<uint32_t> labels(n);
  parallel_for(chunk_count(n), threads, [&](std::size_t c) {
    std::vector<float> dist(k);
    const std::size_t end = std::min(n, (c + 1) * kChunk);
    float unused = 0.0F;
    for (std::size_t p = c * kChunk; p < end; ++p) {
      labels[p] = nearest_centre(pts + p * d, t.data(), d, k, dist.data(), &unused);
    }
  });
  return stats_from_labels(pts, n, d, centroids, labels, threads);
}

CrowdEstimate estimate_crowds(const std::vector<uint64_t>& sizes, double population,
                              double participation, double threshold) {
  CrowdEstimate e;
  const double total =
      static_cast<double>(std::accumulate(sizes.begin(), sizes.end(), uint64_t{0}));
  if (sizes.empty() || total <= 0.0) return e;
  const double per_point = population * participation / total;
  e.smallest_expected = static_cast<double>(sizes[0]) * per_point;
  for (std::size_t c = 0; c < sizes.size(); ++c) {
    const double expected = static_cast<double>(sizes[c]) * per_point;
    if (expected < e.smallest_expected) {
      e.smallest_expected = expected;
      e.smallest_code = static_cast<uint32_t>(c);
    }
    if (expected < threshold) ++e.below_threshold;
  }
  return e;
}

}  // namespace p2b::codebook
