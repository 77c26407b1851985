#include "simplex_codebook.hpp"

#include "codebook/cluster_stats.hpp"
#include "codebook/kmeans_lloyd.hpp"
#include "codebook/kmeans_seed.hpp"
#include "codebook/simplex_grid.hpp"

namespace p2b::sim {

std::vector<float> simplex_grid(uint32_t d, uint32_t q, std::size_t max_points) {
  if (codebook::grid_point_count(d, q) > max_points) return {};
  return codebook::enumerate_grid(d, q);
}

KMeansResult kmeans(const std::vector<float>& points, uint32_t d, uint32_t k, int max_iterations,
                    uint64_t seed, unsigned threads,
                    const std::function<void(int, double)>& on_iteration) {
  const std::size_t n = points.size() / d;
  codebook::SeedOptions so;
  so.seed = seed;
  so.threads = threads;
  codebook::LloydOptions lo;
  lo.max_iterations = max_iterations;
  lo.threads = threads;
  lo.track_inertia = static_cast<bool>(on_iteration);
  if (on_iteration) {
    lo.on_iteration = [&](int it, std::size_t, double inertia) { on_iteration(it, inertia); };
  }
  codebook::LloydResult r =
      codebook::lloyd(points.data(), n, d, codebook::seed_kmeanspp(points.data(), n, d, k, so), lo);
  const codebook::ClusterStats s =
      codebook::stats_from_labels(points.data(), n, d, r.centroids, r.labels, threads);
  KMeansResult out;
  out.centroids = std::move(r.centroids);
  out.inertia = s.inertia;
  out.smallest_cluster = static_cast<uint32_t>(s.smallest);
  out.largest_cluster = static_cast<uint32_t>(s.largest);
  out.iterations = r.iterations;
  return out;
}

}  // namespace p2b::sim
