#include "codebook/kmeans_refine.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "codebook/cluster_sums.hpp"
#include "codebook/distance.hpp"
#include "codebook/parallel.hpp"

namespace p2b::codebook {

namespace {

// A move must gain more than this fraction of the removal cost, so rounding
// in the double arithmetic can never make a move that does not pay.
constexpr double kMinGain = 1e-12;

double squared_distance_to(const float* x, const double* c, uint32_t d) {
  double s = 0.0;
  for (uint32_t j = 0; j < d; ++j) {
    const double diff = static_cast<double>(x[j]) - c[j];
    s += diff * diff;
  }
  return s;
}

// The up to m centroids nearest `x` among `from` (ids, skipping `own`),
// nearest first, ties to the earlier id in `from`; unused slots hold k.
void nearest_of(const float* x, const float* c, uint32_t d, const uint32_t* from, uint32_t count,
                uint32_t own, uint32_t m, uint32_t* best, float* best_d) {
  uint32_t have = 0;
  for (uint32_t s = 0; s < count; ++s) {
    const uint32_t j = from[s];
    if (j == own) continue;
    const float v = squared_distance(x, c + static_cast<std::size_t>(j) * d, d);
    if (have == m && v >= best_d[m - 1]) continue;
    uint32_t at = have < m ? have++ : m - 1;
    for (; at > 0 && best_d[at - 1] > v; --at) {
      best_d[at] = best_d[at - 1];
      best[at] = best[at - 1];
    }
    best_d[at] = v;
    best[at] = j;
  }
}

// Each point's m nearest centroids other than its own, nearest first. A
// point's near centroids are sought among the `kNeighbours` centroids
// nearest its own centroid (a cheap k x k scan), not among all k.
constexpr uint32_t kNeighbours = 32;

std::vector<uint32_t> nearest_candidates(const float* pts, std::size_t n, uint32_t d,
                                         const std::vector<float>& centroids,
                                         const std::vector<uint32_t>& labels, uint32_t m,
                                         unsigned threads) {
  const auto k = static_cast<uint32_t>(centroids.size() / d);
  const uint32_t nb = std::min(kNeighbours, k - 1);
  std::vector<uint32_t> all(k);
  std::iota(all.begin(), all.end(), 0U);
  std::vector<uint32_t> neighbours(static_cast<std::size_t>(k) * nb, k);
  parallel_for((k + 63) / 64, threads, [&](std::size_t task) {
    std::vector<float> best_d(nb);
    const auto last = std::min<uint32_t>(k, static_cast<uint32_t>(task + 1) * 64);
    for (auto c = static_cast<uint32_t>(task * 64); c < last; ++c) {
      nearest_of(&centroids[static_cast<std::size_t>(c) * d], centroids.data(), d, all.data(), k, c,
                 nb, &neighbours[static_cast<std::size_t>(c) * nb], best_d.data());
    }
  });
  std::vector<uint32_t> cand(n * m, k);
  parallel_for(chunk_count(n), threads, [&](std::size_t c) {
    std::vector<float> best_d(m);
    const std::size_t end = std::min(n, (c + 1) * kChunk);
    for (std::size_t p = c * kChunk; p < end; ++p) {
      nearest_of(pts + p * d, centroids.data(), d,
                 &neighbours[static_cast<std::size_t>(labels[p]) * nb], nb, labels[p], m,
                 &cand[p * m], best_d.data());
    }
  });
  return cand;
}

class Hartigan {
 public:
  Hartigan(const float* pts, std::size_t n, uint32_t d, const std::vector<float>& centroids,
           std::vector<uint32_t>* labels, unsigned threads)
      : pts_(pts), n_(n), d_(d), k_(static_cast<uint32_t>(centroids.size() / d)), labels_(*labels) {
    ClusterSums cs;
    cluster_sums(pts, n, d, labels_.data(), k_, threads, &cs);
    sums_ = std::move(cs.sums);
    counts_ = std::move(cs.counts);
    means_.resize(sums_.size());
    changed_.assign(k_, 0);
    seen_.assign(n_, 0);
    for (uint32_t c = 0; c < k_; ++c) {
      if (counts_[c] == 0) {  // an empty cluster keeps its centre
        for (uint32_t j = 0; j < d_; ++j) means_[c * d_ + j] = centroids[c * d_ + j];
      } else {
        set_mean(c);
      }
    }
  }

  // New candidates: every point is examined again.
  void reset() { seen_.assign(n_, 0); }

  // One pass over the points in index order; returns the moves made. A point
  // is skipped when neither its cluster nor any candidate has changed since
  // it was last examined and did not move: its answer would be the same.
  std::size_t pass(const std::vector<uint32_t>& cand, uint32_t m) {
    std::size_t moves = 0;
    for (std::size_t p = 0; p < n_; ++p) {
      const uint32_t i = labels_[p];
      if (seen_[p] != 0) {
        bool stale = changed_[i] > seen_[p];
        for (uint32_t s = 0; s < m && !stale; ++s) {
          const uint32_t j = cand[p * m + s];
          stale = j < k_ && changed_[j] > seen_[p];
        }
        if (!stale) continue;
      }
      seen_[p] = step_;
      if (counts_[i] <= 1) continue;  // never empty a cluster
      const float* x = pts_ + p * d_;
      const auto ni = static_cast<double>(counts_[i]);
      const double remove =
          ni / (ni - 1.0) * squared_distance_to(x, &means_[static_cast<std::size_t>(i) * d_], d_);
      double best = remove * (1.0 - kMinGain);
      uint32_t to = k_;
      for (uint32_t s = 0; s < m; ++s) {
        const uint32_t j = cand[p * m + s];
        if (j >= k_ || j == i) continue;
        const auto nj = static_cast<double>(counts_[j]);
        const double add =
            nj / (nj + 1.0) * squared_distance_to(x, &means_[static_cast<std::size_t>(j) * d_], d_);
        if (add < best) best = add, to = j;
      }
      if (to == k_) continue;
      for (uint32_t j = 0; j < d_; ++j) {
        sums_[i * d_ + j] -= x[j];
        sums_[to * d_ + j] += x[j];
      }
      --counts_[i];
      ++counts_[to];
      set_mean(i);
      set_mean(to);
      labels_[p] = to;
      ++moves;
      changed_[i] = changed_[to] = ++step_;
      seen_[p] = 0;  // examine it again next pass
    }
    return moves;
  }

  // The centroids as float, for Lloyd.
  std::vector<float> centroids() const {
    std::vector<float> c(means_.size());
    for (std::size_t i = 0; i < c.size(); ++i) c[i] = static_cast<float>(means_[i]);
    return c;
  }

 private:
  void set_mean(uint32_t c) {
    const auto nc = static_cast<double>(counts_[c]);
    for (uint32_t j = 0; j < d_; ++j) means_[c * d_ + j] = sums_[c * d_ + j] / nc;
  }

  const float* pts_;
  std::size_t n_;
  uint32_t d_, k_;
  std::vector<uint32_t>& labels_;
  std::vector<double> sums_, means_;
  std::vector<uint64_t> counts_;
  // Move counter; per cluster the count at its last change, per point at its
  // last examination (0: not examined since the candidates changed).
  uint64_t step_ = 1;
  std::vector<uint64_t> changed_, seen_;
};

}  // namespace

RefineResult hartigan_refine(const float* pts, std::size_t n, uint32_t d, LloydResult* r,
                             const RefineOptions& o) {
  RefineResult out;
  const auto k = static_cast<uint32_t>(r->centroids.size() / d);
  const uint32_t m = std::min(o.candidates, k > 0 ? k - 1 : 0);
  if (m == 0 || n == 0) {
    out.converged = true;
    return out;
  }
  // Hartigan passes subsume Lloyd's reassignments (a point nearer another
  // centroid always pays to move there, unless it is alone), so a round only
  // refreshes the candidates from the moved centroids. Lloyd runs once at the
  // end, so the labels are the nearest centroids. (Re-running Lloyd after
  // every round reached about the same inertia for twice the time.)
  Hartigan h(pts, n, d, r->centroids, &r->labels, o.threads);
  std::vector<float> centroids = r->centroids;
  for (int round = 1; round <= o.max_rounds; ++round) {
    const std::vector<uint32_t> cand =
        nearest_candidates(pts, n, d, centroids, r->labels, m, o.threads);
    h.reset();
    std::size_t moves = 0;
    for (int pass = 0; pass < o.max_passes; ++pass) {
      const std::size_t moved = h.pass(cand, m);
      moves += moved;
      if (moved == 0) break;
    }
    if (o.on_round) o.on_round(round, moves);
    if (moves == 0) {
      out.converged = true;
      break;
    }
    ++out.rounds;
    out.moves += moves;
    centroids = h.centroids();
  }
  if (out.moves == 0) {
    out.converged = out.converged && r->converged;
    return out;
  }
  LloydOptions lo;
  lo.threads = o.threads;
  lo.max_iterations = o.max_lloyd_iterations;
  *r = lloyd(pts, n, d, std::move(centroids), lo);
  out.lloyd_iterations = r->iterations;
  out.converged = out.converged && r->converged;
  return out;
}

}  // namespace p2b::codebook
