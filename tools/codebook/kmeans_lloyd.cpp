#include "codebook/kmeans_lloyd.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "codebook/cluster_sums.hpp"
#include "codebook/distance.hpp"
#include "codebook/parallel.hpp"

namespace p2b::codebook {

namespace {

// Bounds are kept in float; these margins keep them safe against rounding in
// the distances and in the drift offsets (errors are ~1e-7 relative).
constexpr float kLowerSlack = 1.0F - 1e-5F;
constexpr float kLowerAbs = 1e-6F;
constexpr double kDriftSlack = 1.0 + 1e-5;
constexpr double kDriftAbs = 1e-7;

float lower_bound_of(float d2) {
  return std::sqrt(d2) * kLowerSlack - kLowerAbs;
}

// Groups the centres by a few plain k-means steps on the centres themselves;
// returns each centre's group.
std::vector<uint32_t> group_centres(const std::vector<float>& c, uint32_t k, uint32_t d,
                                    uint32_t t) {
  std::vector<float> g(static_cast<std::size_t>(t) * d);
  for (uint32_t i = 0; i < t; ++i) {
    const std::size_t src = static_cast<std::size_t>(i) * k / t;
    std::copy_n(&c[src * d], d, &g[static_cast<std::size_t>(i) * d]);
  }
  std::vector<uint32_t> of(k, 0);
  for (int step = 0; step < 5; ++step) {
    for (uint32_t i = 0; i < k; ++i) {
      float best = std::numeric_limits<float>::infinity();
      for (uint32_t j = 0; j < t; ++j) {
        const float s = squared_distance(&c[static_cast<std::size_t>(i) * d],
                                         &g[static_cast<std::size_t>(j) * d], d);
        if (s < best) best = s, of[i] = j;
      }
    }
    std::vector<double> sum(g.size(), 0.0);
    std::vector<uint32_t> count(t, 0);
    for (uint32_t i = 0; i < k; ++i) {
      ++count[of[i]];
      for (uint32_t j = 0; j < d; ++j) sum[of[i] * d + j] += c[static_cast<std::size_t>(i) * d + j];
    }
    for (uint32_t j = 0; j < t; ++j) {
      if (count[j] == 0) continue;
      for (uint32_t x = 0; x < d; ++x) g[j * d + x] = static_cast<float>(sum[j * d + x] / count[j]);
    }
  }
  return of;
}

class Yinyang {
 public:
  Yinyang(const float* pts, std::size_t n, uint32_t d, std::vector<float> seeds, uint32_t groups)
      : pts_(pts), n_(n), d_(d), k_(static_cast<uint32_t>(seeds.size() / d)) {
    t_ = std::max(1U, std::min(groups, k_));
    // Reorder the centres so each group is a contiguous run of the
    // transposed array, which the distance kernel scans in one go.
    const std::vector<uint32_t> of = group_centres(seeds, k_, d_, t_);
    order_.resize(k_);
    std::iota(order_.begin(), order_.end(), 0U);
    std::stable_sort(order_.begin(), order_.end(),
                     [&](uint32_t a, uint32_t b) { return of[a] < of[b]; });
    centres_.resize(seeds.size());
    group_of_.resize(k_);
    group_begin_.assign(t_ + 1, 0);
    for (uint32_t i = 0; i < k_; ++i) {
      std::copy_n(&seeds[static_cast<std::size_t>(order_[i]) * d_], d_,
                  &centres_[static_cast<std::size_t>(i) * d_]);
      group_of_[i] = of[order_[i]];
      ++group_begin_[of[order_[i]] + 1];
    }
    for (uint32_t g = 0; g < t_; ++g) group_begin_[g + 1] += group_begin_[g];
    transposed_ = transpose_centres(centres_, k_, d_);
    labels_.assign(n_, 0);
    upper_.assign(n_, 0.0F);
    global_.assign(n_, 0.0F);
    lower_.assign(n_ * t_, 0.0F);
    drift_.assign(k_, 0.0F);
    group_offset_.assign(t_, 0.0F);
  }

  std::size_t assign(bool full, unsigned threads) {
    std::vector<std::size_t> moved(chunk_count(n_), 0);
    parallel_for(moved.size(), threads, [&](std::size_t c) {
      Scratch s(k_, t_);
      const std::size_t end = std::min(n_, (c + 1) * kChunk);
      for (std::size_t p = c * kChunk; p < end; ++p) moved[c] += assign_point(p, full, s);
    });
    return std::accumulate(moved.begin(), moved.end(), std::size_t{0});
  }

  void update(unsigned threads) {
    ClusterSums cs;
    cluster_sums(pts_, n_, d_, labels_.data(), k_, threads, &cs);
    std::vector<double> group_drift(t_, 0.0);
    for (uint32_t c = 0; c < k_; ++c) {
      double drift = 0.0;
      if (cs.counts[c] > 0) {  // an empty cluster keeps its centre
        for (uint32_t j = 0; j < d_; ++j) {
          float& v = centres_[static_cast<std::size_t>(c) * d_ + j];
          const auto nv = static_cast<float>(cs.sums[static_cast<std::size_t>(c) * d_ + j] /
                                             static_cast<double>(cs.counts[c]));
          const double diff = static_cast<double>(nv) - v;
          drift += diff * diff;
          v = nv;
        }
      }
      const double bound = drift > 0.0 ? std::sqrt(drift) * kDriftSlack + kDriftAbs : 0.0;
      drift_[c] = static_cast<float>(bound);
      group_drift[group_of_[c]] = std::max(group_drift[group_of_[c]], bound);
    }
    double max_drift = 0.0;
    for (uint32_t g = 0; g < t_; ++g) {
      group_offset_[g] += static_cast<float>(group_drift[g]);
      max_drift = std::max(max_drift, group_drift[g]);
    }
    global_offset_ += static_cast<float>(max_drift);
    transposed_ = transpose_centres(centres_, k_, d_);
  }

  // Centroids and labels back in the seeds' order.
  void result(LloydResult* r) const {
    r->centroids.assign(centres_.size(), 0.0F);
    std::vector<uint32_t> back(k_);
    for (uint32_t i = 0; i < k_; ++i) {
      back[i] = order_[i];
      std::copy_n(&centres_[static_cast<std::size_t>(i) * d_], d_,
                  &r->centroids[static_cast<std::size_t>(order_[i]) * d_]);
    }
    r->labels.resize(n_);
    for (std::size_t p = 0; p < n_; ++p) r->labels[p] = back[labels_[p]];
  }

  const std::vector<float>& centres() const { return centres_; }
  const std::vector<uint32_t>& labels() const { return labels_; }

 private:
  struct Scratch {
    Scratch(uint32_t k, uint32_t t) : dist(k), lower(t), min1(t), min2(t), arg1(t), scanned(t) {}
    std::vector<float> dist, lower, min1, min2;
    std::vector<uint32_t> arg1;
    std::vector<char> scanned;
  };

  // Returns 1 if the point changed cluster.
  int assign_point(std::size_t p, bool full, Scratch& s) {
    const float* x = pts_ + p * d_;
    const uint32_t a = labels_[p];
    float* stored = &lower_[p * t_];
    float up = 0.0F;
    if (full) {
      std::fill(s.lower.begin(), s.lower.end(), 0.0F);
    } else {
      // Cheapest test first: the global bound, then with the upper bound
      // made exact, then against the tightest group bound.
      up = upper_[p] + drift_[a];
      const float global = global_[p] - global_offset_;
      if (up <= global) {
        upper_[p] = up;
        return 0;
      }
      up = std::sqrt(squared_distance(x, &centres_[static_cast<std::size_t>(a) * d_], d_));
      upper_[p] = up;
      if (up <= global) return 0;
      float tightest = std::numeric_limits<float>::infinity();
      for (uint32_t g = 0; g < t_; ++g) {
        s.lower[g] = stored[g] - group_offset_[g];
        tightest = std::min(tightest, s.lower[g]);
      }
      global_[p] = tightest + global_offset_;
      if (up <= tightest) return 0;
    }
    // Group filter: scan only the groups whose bound is below the best so far.
    uint32_t best = a;
    float best_d2 = full ? std::numeric_limits<float>::infinity() : up * up;
    float best_d = full ? best_d2 : up;
    for (uint32_t g = 0; g < t_; ++g) {
      s.scanned[g] = 0;
      if (!full && s.lower[g] >= best_d) continue;
      const TwoNearest two = two_nearest(x, transposed_.data(), d_, k_, group_begin_[g],
                                         group_begin_[g + 1], s.dist.data());
      const float m1 = two.d1, m2 = two.d2;
      const uint32_t i1 = two.i1;
      s.scanned[g] = 1, s.min1[g] = m1, s.min2[g] = m2, s.arg1[g] = i1;
      if (m1 < best_d2) best_d2 = m1, best = i1, best_d = std::sqrt(m1);
    }
    // New bounds: each scanned group's bound excludes the new centre; the old
    // centre joins its group's bound if the point left it. Other groups keep
    // their stored bound as it is.
    const uint32_t home = group_of_[a];
    for (uint32_t g = 0; g < t_; ++g) {
      if (s.scanned[g]) {
        s.lower[g] = lower_bound_of(s.arg1[g] == best ? s.min2[g] : s.min1[g]);
      } else if (best != a && g == home) {
        s.lower[g] = std::min(s.lower[g], lower_bound_of(up * up));
      } else {
        continue;
      }
      stored[g] = s.lower[g] + group_offset_[g];
    }
    float tightest = std::numeric_limits<float>::infinity();
    for (uint32_t g = 0; g < t_; ++g) tightest = std::min(tightest, s.lower[g]);
    global_[p] = tightest + global_offset_;
    upper_[p] = best_d;
    labels_[p] = best;
    return best != a ? 1 : 0;
  }

  const float* pts_;
  std::size_t n_;
  uint32_t d_, k_, t_ = 1;
  std::vector<uint32_t> order_;  // internal centre -> seed index
  std::vector<float> centres_;   // k x d, internal order
  std::vector<float> transposed_;
  std::vector<uint32_t> group_of_, group_begin_;
  std::vector<uint32_t> labels_;
  std::vector<float> upper_;
  // Lower bounds are stored plus the drift accumulated so far (per group,
  // and the largest for the global bound), so a pruned point is not touched:
  // the true bound is stored - offset.
  std::vector<float> global_, lower_;
  std::vector<float> drift_;
  std::vector<float> group_offset_;
  float global_offset_ = 0.0F;
};

}  // namespace

double labelled_inertia(const float* pts, std::size_t n, uint32_t d, const float* centroids,
                        const uint32_t* labels, unsigned threads) {
  std::vector<double> part(chunk_count(n), 0.0);
  parallel_for(part.size(), threads, [&](std::size_t c) {
    const std::size_t end = std::min(n, (c + 1) * kChunk);
    for (std::size_t p = c * kChunk; p < end; ++p) {
      part[c] += squared_distance_exact(pts + p * d,
                                        centroids + static_cast<std::size_t>(labels[p]) * d, d);
    }
  });
  return std::accumulate(part.begin(), part.end(), 0.0);
}

LloydResult lloyd(const float* pts, std::size_t n, uint32_t d, std::vector<float> seeds,
                  const LloydOptions& o) {
  const auto k = static_cast<uint32_t>(seeds.size() / d);
  Yinyang y(pts, n, d, std::move(seeds), o.groups ? o.groups : k / 64);
  y.assign(true, o.threads);
  LloydResult r;
  while (r.iterations < o.max_iterations) {
    y.update(o.threads);
    const std::size_t moved = y.assign(false, o.threads);
    ++r.iterations;
    if (o.on_iteration) {
      const double inertia = o.track_inertia ? labelled_inertia(pts, n, d, y.centres().data(),
                                                                y.labels().data(), o.threads)
                                             : std::numeric_limits<double>::quiet_NaN();
      o.on_iteration(r.iterations, moved, inertia);
    }
    if (moved == 0) {
      r.converged = true;
      break;
    }
  }
  y.result(&r);
  return r;
}

}  // namespace p2b::codebook
