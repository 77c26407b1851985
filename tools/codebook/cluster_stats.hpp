// What the summary reports about a codebook on a set of points: inertia and
// cluster sizes, and from the sizes the expected crowd per code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace p2b::codebook {

struct ClusterStats {
  double inertia = 0.0;         // sum of squared distances, double
  std::vector<uint64_t> sizes;  // points per code
  uint64_t smallest = 0, largest = 0;
  uint32_t smallest_code = 0, largest_code = 0;
};

// Stats of points already labelled with their nearest centroid.
ClusterStats stats_from_labels(const float* pts, std::size_t n, uint32_t d,
                               const std::vector<float>& centroids,
                               const std::vector<uint32_t>& labels, unsigned threads);

// Labels every point with its nearest centroid by a full scan, then as above.
ClusterStats evaluate(const float* pts, std::size_t n, uint32_t d,
                      const std::vector<float>& centroids, unsigned threads);

// Expected reports per code in one batch, assuming contexts uniform over the
// grid: population x participation x (share of the points in the code).
struct CrowdEstimate {
  double smallest_expected = 0.0;
  uint32_t smallest_code = 0;
  uint32_t below_threshold = 0;  // codes whose expected crowd is below l
};

CrowdEstimate estimate_crowds(const std::vector<uint64_t>& sizes, double population,
                              double participation, double threshold);

}  // namespace p2b::codebook
