#include <cmath>

#include "vertical/world.hpp"

namespace p2b::vertical {
namespace {

class Synthetic final : public World {
 public:
  Synthetic(uint32_t d, uint32_t k, vfl::Partition partition, double noise_sd, uint64_t seed)
      : d_(d), k_(k), partition_(std::move(partition)), noise_(0.0, noise_sd), rng_(seed) {
    theta_ = unit();
  }
  uint32_t dim() const override { return d_; }
  uint32_t items() const override { return k_; }
  const vfl::Partition& partition() const override { return partition_; }
  std::string describe() const override {
    return "synthetic: x, theta ~ N(0, 0.05 I) l2-normalised, reward x.theta + N(0, " +
           std::to_string(noise_.stddev()) + "^2)";
  }
  void draw(Round* r) override {
    r->contexts.clear();
    r->mean.resize(k_);
    r->realised.resize(k_);
    for (uint32_t i = 0; i < k_; ++i) {
      const std::vector<double> x = unit();
      r->contexts.insert(r->contexts.end(), x.begin(), x.end());
      double m = 0.0;
      for (uint32_t c = 0; c < d_; ++c) m += x[c] * theta_[c];
      r->mean[i] = m;
      r->realised[i] = m + noise_(rng_);
    }
  }

 private:
  std::vector<double> unit() {
    std::vector<double> v(d_);
    double n2 = 0.0;
    for (double& x : v) {
      x = gauss_(rng_);
      n2 += x * x;
    }
    for (double& x : v) x /= std::sqrt(n2);
    return v;
  }
  uint32_t d_;
  uint32_t k_;
  vfl::Partition partition_;
  std::normal_distribution<double> gauss_{0.0, std::sqrt(0.05)};
  std::normal_distribution<double> noise_;
  std::mt19937_64 rng_;
  std::vector<double> theta_;
};

}  // namespace

std::unique_ptr<World> synthetic_world(uint32_t d, uint32_t k, const vfl::Partition& partition,
                                       double noise_sd, uint64_t seed) {
  return std::make_unique<Synthetic>(d, k, partition, noise_sd, seed);
}

}  // namespace p2b::vertical
