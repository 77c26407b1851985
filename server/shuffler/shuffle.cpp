#include "shuffler/shuffle.hpp"

#include <sodium.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <utility>

namespace p2b::shuffler {

namespace {

class Csprng final : public Randomness {
 public:
  uint32_t uniform(uint32_t n) override { return randombytes_uniform(n); }
  // 53 random bits, never 0, so a logarithm of it is always finite.
  double unit_open0() override {
    uint64_t bits = 0;
    randombytes_buf(&bits, sizeof bits);
    return static_cast<double>((bits >> 11) + 1) * 0x1.0p-53;
  }
};

}  // namespace

Randomness& csprng() {
  static Csprng source;
  return source;
}

std::vector<std::size_t> random_permutation(std::size_t n, Randomness& rng) {
  if (n > UINT32_MAX) throw std::length_error("permutation too large for randombytes_uniform");
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  for (std::size_t i = n; i > 1; --i) {
    const std::size_t j = rng.uniform(static_cast<uint32_t>(i));
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

long long rounded_gaussian(double sigma, Randomness& rng) {
  if (sigma <= 0) return 0;
  // Box-Muller; one of the pair is enough.
  const double r = std::sqrt(-2.0 * std::log(rng.unit_open0()));
  const double z = r * std::cos(2.0 * M_PI * rng.unit_open0());
  return std::llround(z * sigma);
}

bool crowd_survives(std::size_t count, const ThresholdPolicy& policy, Randomness& rng) {
  const long long noisy = static_cast<long long>(count) + rounded_gaussian(policy.noise_sigma, rng);
  return noisy >= static_cast<long long>(policy.threshold);
}

std::vector<std::size_t> shuffle_and_threshold(const std::vector<uint32_t>& crowd_ids,
                                               const ThresholdPolicy& policy, Randomness& rng) {
  // Ordered, so a seeded source draws the crowds' noise in a fixed order.
  std::map<uint32_t, std::size_t> counts;
  for (uint32_t c : crowd_ids) ++counts[c];
  std::unordered_map<uint32_t, bool> released;
  for (const auto& [crowd, count] : counts) released[crowd] = crowd_survives(count, policy, rng);

  std::vector<std::size_t> kept;
  for (std::size_t i : random_permutation(crowd_ids.size(), rng)) {
    if (released[crowd_ids[i]]) kept.push_back(i);
  }
  return kept;
}

}  // namespace p2b::shuffler
