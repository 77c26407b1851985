#include "simplex_codebook.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>

#include "synthetic_env.hpp"

namespace p2b::sim {

namespace {

double binomial(uint32_t n, uint32_t r) {
  double v = 1.0;
  for (uint32_t i = 1; i <= r; ++i) v = v * (n - r + i) / i;
  return v;
}

void compositions(uint32_t remaining, uint32_t index, uint32_t d, float inv,
                  std::vector<uint32_t>& cur, std::vector<float>& out) {
  if (index == d - 1) {
    cur[index] = remaining;
    for (uint32_t v : cur) out.push_back(static_cast<float>(v) * inv);
    return;
  }
  for (uint32_t v = 0; v <= remaining; ++v) {
    cur[index] = v;
    compositions(remaining - v, index + 1, d, inv, cur, out);
  }
}

float squared_distance(const float* a, const float* b, uint32_t d) {
  float s = 0.0F;
  for (uint32_t i = 0; i < d; ++i) {
    const float diff = a[i] - b[i];
    s += diff * diff;
  }
  return s;
}

// Nearest centroid of every point in [begin, end); ties go to the lower index.
void assign_range(const std::vector<float>& pts, const std::vector<float>& cents, uint32_t d,
                  uint32_t k, std::size_t begin, std::size_t end, std::vector<uint32_t>& label,
                  std::vector<float>& dist) {
  for (std::size_t p = begin; p < end; ++p) {
    float best = std::numeric_limits<float>::infinity();
    uint32_t best_c = 0;
    for (uint32_t c = 0; c < k; ++c) {
      const float s = squared_distance(&pts[p * d], &cents[c * static_cast<std::size_t>(d)], d);
      if (s < best) best = s, best_c = c;
    }
    label[p] = best_c;
    dist[p] = best;
  }
}

// Splits the assignment over threads; each point's result is independent of
// the split, which keeps runs deterministic.
void assign_all(const std::vector<float>& pts, const std::vector<float>& cents, uint32_t d,
                uint32_t k, unsigned threads, std::vector<uint32_t>& label,
                std::vector<float>& dist) {
  const std::size_t n = label.size();
  std::vector<std::thread> pool;
  const std::size_t chunk = (n + threads - 1) / threads;
  for (unsigned t = 1; t < threads; ++t) {
    const std::size_t b = std::min(n, t * chunk), e = std::min(n, (t + 1) * chunk);
    pool.emplace_back(assign_range, std::cref(pts), std::cref(cents), d, k, b, e, std::ref(label),
                      std::ref(dist));
  }
  assign_range(pts, cents, d, k, 0, std::min(n, chunk), label, dist);
  for (auto& th : pool) th.join();
}

}  // namespace

std::vector<float> simplex_grid(uint32_t d, uint32_t q, std::size_t max_points) {
  uint32_t units = 1;
  for (uint32_t i = 0; i < q; ++i) units *= 10;
  const double count = binomial(units + d - 1, d - 1);
  if (count > static_cast<double>(max_points)) return {};
  std::vector<float> out;
  out.reserve(static_cast<std::size_t>(count) * d);
  std::vector<uint32_t> cur(d);
  compositions(units, 0, d, 1.0F / static_cast<float>(units), cur, out);
  return out;
}

KMeansResult kmeans(const std::vector<float>& points, uint32_t d, uint32_t k, int max_iterations,
                    uint64_t seed, unsigned threads,
                    const std::function<void(int, double)>& on_iteration) {
  const std::size_t n = points.size() / d;
  threads = std::max(1U, threads);
  Draws draws(seed);
  KMeansResult r;
  r.centroids.assign(static_cast<std::size_t>(k) * d, 0.0F);

  // k-means++: each next seed is drawn with probability proportional to its
  // squared distance from the seeds so far.
  std::vector<double> d2(n, std::numeric_limits<double>::infinity());
  std::size_t pick = static_cast<std::size_t>(draws.uniform() * n);
  for (uint32_t c = 0; c < k; ++c) {
    std::copy_n(&points[pick * d], d, &r.centroids[c * static_cast<std::size_t>(d)]);
    double total = 0.0;
    for (std::size_t p = 0; p < n; ++p) {
      d2[p] =
          std::min(d2[p], static_cast<double>(squared_distance(
                              &points[p * d], &r.centroids[c * static_cast<std::size_t>(d)], d)));
      total += d2[p];
    }
    double target = draws.uniform() * total;
    pick = n - 1;
    for (std::size_t p = 0; p < n; ++p) {
      target -= d2[p];
      if (target < 0.0) {
        pick = p;
        break;
      }
    }
  }

  std::vector<uint32_t> label(n, UINT32_MAX), prev(n, UINT32_MAX);
  std::vector<float> dist(n);
  std::vector<double> sums(static_cast<std::size_t>(k) * d);
  std::vector<uint32_t> sizes(k);
  for (int it = 1; it <= max_iterations; ++it) {
    assign_all(points, r.centroids, d, k, threads, label, dist);
    r.iterations = it;
    r.inertia = 0.0;
    for (float v : dist) r.inertia += v;
    if (on_iteration) on_iteration(it, r.inertia);
    if (label == prev) break;
    prev = label;
    std::fill(sums.begin(), sums.end(), 0.0);
    std::fill(sizes.begin(), sizes.end(), 0U);
    for (std::size_t p = 0; p < n; ++p) {
      ++sizes[label[p]];
      for (uint32_t i = 0; i < d; ++i)
        sums[label[p] * static_cast<std::size_t>(d) + i] += points[p * d + i];
    }
    for (uint32_t c = 0; c < k; ++c) {
      if (sizes[c] == 0) continue;  // an empty cluster keeps its centroid
      for (uint32_t i = 0; i < d; ++i) {
        r.centroids[c * static_cast<std::size_t>(d) + i] =
            static_cast<float>(sums[c * static_cast<std::size_t>(d) + i] / sizes[c]);
      }
    }
  }
  std::fill(sizes.begin(), sizes.end(), 0U);
  for (uint32_t l : label) ++sizes[l];
  r.smallest_cluster = *std::min_element(sizes.begin(), sizes.end());
  r.largest_cluster = *std::max_element(sizes.begin(), sizes.end());
  return r;
}

}  // namespace p2b::sim
