// The whole training run behind p2b-codebook, as a library call, so p2b-sim
// trains the same codebooks in process: greedy k-means++ then Lloyd and
// Hartigan refinement over the whole simplex grid, or mini-batch k-means over
// streamed samples when the grid is too large. Same options, same centroids,
// bit for bit, whatever `threads` is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "codebook/cluster_stats.hpp"
#include "codebook/kmeans_refine.hpp"

namespace p2b::codebook {

// Grids up to this many points are trained whole (Lloyd); larger ones only
// by mini-batch over samples.
constexpr uint64_t kMaxFullGrid = 2'000'000;
// Mini-batch runs on large grids are scored on this fixed sample, the same
// for every seed so runs compare.
constexpr std::size_t kEvalPoints = 262'144;
constexpr uint64_t kEvalSeed = 0x70326265ULL;  // "p2be"

struct TrainOptions {
  uint32_t dim = 0;
  uint32_t digits = 1;
  uint32_t codes = 0;  // at most grid_point_count(dim, digits)
  uint64_t seed = 0;
  unsigned threads = 1;
  bool mini_batch = false;  // mini-batch even when the grid fits kMaxFullGrid
  bool refine = true;       // Hartigan refinement after Lloyd
  std::size_t batch_size = 4096;
  int max_iterations = 1000;    // Lloyd iterations, or mini-batch batches
  int max_no_improvement = 10;  // mini-batch early stop (kmeans_minibatch.hpp); 0: off
  // Progress, one short line at a time ("Lloyd iteration 3: 120 points moved").
  std::function<void(const char*)> on_status;
};

struct TrainResult {
  std::vector<float> centroids;  // codes x dim
  ClusterStats stats;            // on the whole grid or the evaluation sample
  uint64_t grid = 0;             // grid points
  bool whole = false;            // Lloyd on the whole grid, else mini-batch
  bool eval_whole = false;       // stats over the whole grid, else the sample
  std::size_t eval_points = 0;
  int iterations = 0;  // Lloyd iterations (refinement's included), or batches
  int lloyd_iterations = 0;
  bool lloyd_converged = false;
  bool minibatch_stopped_early = false;
  RefineResult refined;
  double seed_seconds = 0.0, lloyd_seconds = 0.0, refine_seconds = 0.0, seconds = 0.0;
};

// Trains a codebook. Throws std::invalid_argument when `codes` exceeds the
// grid.
TrainResult train_codebook(const TrainOptions& o);

}  // namespace p2b::codebook
