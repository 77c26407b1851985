// Mini-batch k-means (Sculley 2010) over samples streamed uniformly from the
// simplex grid, for grids too large to hold (20,030,010 points at d=20, q=1).
// Memory is O(k*d + batch), never O(grid).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace p2b::codebook {

struct MiniBatchOptions {
  uint64_t seed = 0;
  unsigned threads = 1;
  std::size_t batch_size = 4096;
  int max_iterations = 1000;  // batches
  // Early stop, as scikit-learn's MiniBatchKMeans: after this many batches
  // in a row without a new low of the smoothed batch inertia (an
  // exponentially weighted average of each batch's mean squared distance,
  // weight min(1, 2 * batch / (grid + 1))), stop. 0: run every batch.
  int max_no_improvement = 10;
  std::size_t init_size = 0;  // seeding sample; 0: max(3 * batch, 10 * k)
  std::function<void(int)> on_batch;
};

struct MiniBatchResult {
  std::vector<float> centroids;  // k x d
  int iterations = 0;            // batches used
  bool stopped_early = false;    // by max_no_improvement
  double smoothed_inertia = 0;   // per sample, at the end
  std::size_t init_size = 0;
};

// Greedy k-means++ on an init sample, then one centre update per batch: each
// centre moves to the running mean of every sample it has won so far (a
// per-centre learning rate of 1/count). Batches are drawn in fixed chunks
// with their own random streams, so the result is the same for any threads.
MiniBatchResult minibatch_kmeans(uint32_t d, uint32_t q, uint32_t k, const MiniBatchOptions& o);

}  // namespace p2b::codebook
