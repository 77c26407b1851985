// The demos' codebook trainer: a thin wrapper over the p2b-codebook library
// (tools/codebook, docs/codebook.md), kept so the demos' calls stay as they are.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace p2b::sim {

// Every vector of d non-negative multiples of 10^-q summing to 1:
// C(10^q + d - 1, d - 1) points, row-major. Refuses (returns empty) above
// `max_points`.
std::vector<float> simplex_grid(uint32_t d, uint32_t q, std::size_t max_points);

struct KMeansResult {
  std::vector<float> centroids;  // k x d
  double inertia = 0.0;
  uint32_t smallest_cluster = 0;
  uint32_t largest_cluster = 0;
  int iterations = 0;
};

// Greedy k-means++ seeding then Lloyd iterations until no point moves or
// `max_iterations`. Deterministic for a seed, whatever `threads` is.
// `on_iteration` gets the iteration and the inertia after it.
KMeansResult kmeans(const std::vector<float>& points, uint32_t d, uint32_t k, int max_iterations,
                    uint64_t seed, unsigned threads,
                    const std::function<void(int, double)>& on_iteration = {});

}  // namespace p2b::sim
