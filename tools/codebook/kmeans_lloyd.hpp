// Lloyd's k-means to convergence (no point changes cluster), with Yinyang
// bounds (Ding et al., ICML 2015) to skip most distance computations: the
// centres are split into groups, and each point keeps an upper bound on its
// distance to its own centre and a lower bound per group, moved by how far
// the centres drift. The result is Lloyd's; only the work is pruned.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace p2b::codebook {

struct LloydOptions {
  int max_iterations = 1000;
  unsigned threads = 1;
  uint32_t groups = 0;         // 0: k / 64 (measured fastest at k=1024), at least 1
  bool track_inertia = false;  // compute the inertia after every iteration
  // After each iteration: its number, how many points changed cluster, and
  // the inertia (NaN unless track_inertia).
  std::function<void(int, std::size_t, double)> on_iteration;
};

struct LloydResult {
  std::vector<float> centroids;  // k x d, in the order of the seeds
  std::vector<uint32_t> labels;  // nearest centroid of each point
  int iterations = 0;            // centre updates made
  bool converged = false;        // the last update moved no point
};

// `seeds` is k x d. Deterministic for any thread count.
LloydResult lloyd(const float* pts, std::size_t n, uint32_t d, std::vector<float> seeds,
                  const LloydOptions& o);

// Sum of squared distances (double) of every point to its labelled centroid,
// reduced in chunk order.
double labelled_inertia(const float* pts, std::size_t n, uint32_t d, const float* centroids,
                        const uint32_t* labels, unsigned threads);

}  // namespace p2b::codebook
