#include "codebook/kmeans_seed.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "codebook/distance.hpp"
#include "codebook/parallel.hpp"
#include "codebook/rng.hpp"

namespace p2b::codebook {

namespace {

constexpr std::size_t kBlock = 256;  // points per block

// The seeding state, over blocks of consecutive points. Each block keeps its
// points dim-major (so distances vectorise), its bounding box, the sum and
// the largest of its points' squared distances to the nearest seed. A
// candidate whose distance to the box is at least that largest one cannot
// bring any of the block's points closer, so the block is skipped.
class Seeder {
 public:
  Seeder(const float* pts, std::size_t n, uint32_t d)
      : pts_(pts),
        n_(n),
        d_(d),
        blocks_(chunk_count(n, kBlock)),
        soa_(blocks_ * kBlock * d, 0.0F),
        lo_(blocks_ * d),
        hi_(blocks_ * d),
        dist_(blocks_ * kBlock, 0.0F),
        sum_(blocks_, 0.0),
        max_(blocks_, 0.0F) {
    for (std::size_t b = 0; b < blocks_; ++b) {
      for (uint32_t j = 0; j < d_; ++j) {
        float lo = std::numeric_limits<float>::infinity(), hi = -lo;
        for (std::size_t i = 0; i < kBlock && b * kBlock + i < n_; ++i) {
          const float v = pts_[(b * kBlock + i) * d_ + j];
          soa_[(b * d_ + j) * kBlock + i] = v;
          lo = std::min(lo, v), hi = std::max(hi, v);
        }
        lo_[b * d_ + j] = lo, hi_[b * d_ + j] = hi;
      }
    }
  }

  // The first seed: every point's distance is to it (padding stays at 0).
  void first(std::size_t p, unsigned threads) {
    const float* x = pts_ + p * d_;
    parallel_for(blocks_, threads, [&](std::size_t b) {
      float scratch[kBlock];
      float* cur = &dist_[b * kBlock];
      std::fill(cur, cur + kBlock, std::numeric_limits<float>::infinity());
      block_lower(&soa_[b * d_ * kBlock], kBlock, d_, x, cur, scratch);
      const std::size_t m = std::min(kBlock, n_ - b * kBlock);
      std::fill(cur + m, cur + kBlock, 0.0F);  // padding never draws or gains
      refresh(b);
    });
  }

  double potential() const {
    double total = 0.0;
    for (double s : sum_) total += s;
    return total;
  }

  // A point drawn with probability proportional to its distance; `r` is
  // uniform in [0, potential()).
  std::size_t draw(double r) const {
    std::size_t b = 0;
    for (; b + 1 < blocks_ && r >= sum_[b]; ++b) r -= sum_[b];
    const std::size_t end = std::min(n_, (b + 1) * kBlock);
    std::size_t last = b * kBlock;
    for (std::size_t p = b * kBlock; p < end; ++p) {
      if (dist_[p] <= 0.0F) continue;
      if (r < dist_[p]) return p;
      r -= dist_[p];
      last = p;
    }
    return last;  // rounding ran past the end
  }

  // How much making point `c` a seed would lower the potential.
  double gain(std::size_t c) const {
    const float* x = pts_ + c * d_;
    double g = 0.0;
    float dd[kBlock];
    for (std::size_t b = 0; b < blocks_; ++b) {
      if (skip(b, x)) continue;
      g += block_gain(&soa_[b * d_ * kBlock], kBlock, d_, x, &dist_[b * kBlock], dd);
    }
    return g;
  }

  void add(std::size_t c, unsigned threads) {
    const float* x = pts_ + c * d_;
    parallel_for(chunk_count(blocks_, 16), threads, [&](std::size_t task) {
      float dd[kBlock];
      for (std::size_t b = task * 16; b < std::min(blocks_, task * 16 + 16); ++b) {
        if (skip(b, x)) continue;
        block_lower(&soa_[b * d_ * kBlock], kBlock, d_, x, &dist_[b * kBlock], dd);
        refresh(b);
      }
    });
  }

 private:
  bool skip(std::size_t b, const float* x) const {
    float gap2 = 0.0F;
    for (uint32_t j = 0; j < d_; ++j) {
      const float g = std::max({0.0F, lo_[b * d_ + j] - x[j], x[j] - hi_[b * d_ + j]});
      gap2 += g * g;
    }
    // Slack for rounding: a skipped block must really have nothing to gain.
    return gap2 * (1.0F - 1e-5F) >= max_[b];
  }

  void refresh(std::size_t b) {
    const float* cur = &dist_[b * kBlock];
    double s = 0.0;
    float m = 0.0F;
    for (std::size_t i = 0; i < kBlock; ++i) s += cur[i], m = std::max(m, cur[i]);
    sum_[b] = s;
    max_[b] = m;
  }

  const float* pts_;
  std::size_t n_;
  uint32_t d_;
  std::size_t blocks_;
  std::vector<float> soa_;      // per block: d rows of kBlock values
  std::vector<float> lo_, hi_;  // per block bounding box
  std::vector<float> dist_;     // squared distance to the nearest seed; 0 for padding
  std::vector<double> sum_;
  std::vector<float> max_;
};

}  // namespace

std::vector<float> seed_kmeanspp(const float* pts, std::size_t n, uint32_t d, uint32_t k,
                                 const SeedOptions& o) {
  const uint32_t trials =
      o.local_trials ? o.local_trials : 2 + static_cast<uint32_t>(std::log(static_cast<double>(k)));
  Rng rng(o.seed, kStreamSeeding, 0);
  Seeder s(pts, n, d);
  std::vector<float> seeds(static_cast<std::size_t>(k) * d);
  auto take = [&](uint32_t i, std::size_t p) {
    std::copy_n(pts + p * d, d, &seeds[static_cast<std::size_t>(i) * d]);
  };
  const std::size_t first = rng.below(n);
  take(0, first);
  s.first(first, o.threads);
  std::vector<std::size_t> cand(trials);
  std::vector<double> gain(trials);
  for (uint32_t step = 1; step < k; ++step) {
    const double total = s.potential();
    for (auto& c : cand) c = total > 0.0 ? s.draw(rng.uniform() * total) : rng.below(n);
    parallel_for(trials, o.threads, [&](std::size_t i) { gain[i] = s.gain(cand[i]); });
    const auto best =
        static_cast<std::size_t>(std::max_element(gain.begin(), gain.end()) - gain.begin());
    take(step, cand[best]);
    s.add(cand[best], o.threads);
  }
  return seeds;
}

}  // namespace p2b::codebook
