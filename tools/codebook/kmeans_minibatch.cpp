#include "codebook/kmeans_minibatch.hpp"

#include <algorithm>

#include "codebook/cluster_sums.hpp"
#include "codebook/distance.hpp"
#include "codebook/kmeans_seed.hpp"
#include "codebook/parallel.hpp"
#include "codebook/rng.hpp"
#include "codebook/simplex_grid.hpp"

namespace p2b::codebook {

namespace {

// Smaller chunks than elsewhere so one batch still splits across threads.
constexpr std::size_t kBatchChunk = 512;

}  // namespace

MiniBatchResult minibatch_kmeans(uint32_t d, uint32_t q, uint32_t k, const MiniBatchOptions& o) {
  MiniBatchResult r;
  r.init_size = o.init_size ? o.init_size : std::max(3 * o.batch_size, std::size_t{10} * k);
  // The init sample's stream is the seed's own, apart from the batches'.
  {
    const std::vector<float> init = sample_grid(d, q, r.init_size, o.seed ^ 0x1a17ULL, o.threads);
    SeedOptions so;
    so.seed = o.seed;
    so.threads = o.threads;
    r.centroids = seed_kmeanspp(init.data(), r.init_size, d, k, so);
  }
  std::vector<double> centre(r.centroids.begin(), r.centroids.end());
  std::vector<uint64_t> won(k, 0);
  std::vector<float> transposed = transpose_centres(r.centroids, k, d);
  std::vector<float> batch(o.batch_size * d);
  std::vector<uint32_t> labels(o.batch_size);
  std::vector<float> nearest_d2(o.batch_size);
  const double grid = static_cast<double>(grid_point_count(d, q));
  const double weight = std::min(1.0, 2.0 * static_cast<double>(o.batch_size) / (grid + 1.0));
  double best_ewa = 0;
  int without_new_low = 0;
  const std::size_t chunks = chunk_count(o.batch_size, kBatchChunk);
  ClusterSums cs;
  for (int it = 0; it < o.max_iterations; ++it) {
    parallel_for(chunks, o.threads, [&](std::size_t c) {
      Rng rng(o.seed, kStreamBatch, static_cast<uint64_t>(it) * chunks + c);
      std::vector<uint32_t> bars(d);
      std::vector<float> dist(k);
      const std::size_t end = std::min(o.batch_size, (c + 1) * kBatchChunk);
      for (std::size_t p = c * kBatchChunk; p < end; ++p) {
        float* x = &batch[p * d];
        sample_grid_point(d, q, rng, bars.data(), x);
        labels[p] = nearest_centre(x, transposed.data(), d, k, dist.data(), &nearest_d2[p]);
      }
    });
    cluster_sums(batch.data(), o.batch_size, d, labels.data(), k, o.threads, &cs);
    for (uint32_t c = 0; c < k; ++c) {
      if (cs.counts[c] == 0) continue;
      const uint64_t before = won[c];
      won[c] += cs.counts[c];
      for (uint32_t j = 0; j < d; ++j) {
        const std::size_t i = static_cast<std::size_t>(c) * d + j;
        centre[i] =
            (centre[i] * static_cast<double>(before) + cs.sums[i]) / static_cast<double>(won[c]);
        r.centroids[i] = static_cast<float>(centre[i]);
        transposed[static_cast<std::size_t>(j) * k + c] = r.centroids[i];
      }
    }
    r.iterations = it + 1;
    if (o.on_batch) o.on_batch(r.iterations);
    // Summed in point order, so the stop does not depend on the threads.
    double batch_inertia = 0;
    for (float v : nearest_d2) batch_inertia += v;
    batch_inertia /= static_cast<double>(o.batch_size);
    r.smoothed_inertia =
        it == 0 ? batch_inertia : r.smoothed_inertia * (1 - weight) + batch_inertia * weight;
    if (it == 0 || r.smoothed_inertia < best_ewa) {
      best_ewa = r.smoothed_inertia;
      without_new_low = 0;
    } else if (o.max_no_improvement > 0 && ++without_new_low >= o.max_no_improvement) {
      r.stopped_early = true;
      break;
    }
  }
  return r;
}

}  // namespace p2b::codebook
