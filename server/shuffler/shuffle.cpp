#include "shuffler/shuffle.hpp"

#include <sodium.h>

#include <cmath>
#include <stdexcept>
#include <unordered_map>
#include <utility>

namespace p2b::shuffler {

namespace {

// Uniform on (0, 1]: 53 random bits, never 0, so the logarithm below is
// always finite.
double uniform_open0() {
  uint64_t bits = 0;
  randombytes_buf(&bits, sizeof bits);
  return static_cast<double>((bits >> 11) + 1) * 0x1.0p-53;
}

}  // namespace

std::vector<std::size_t> csprng_permutation(std::size_t n) {
  if (n > UINT32_MAX) throw std::length_error("permutation too large for randombytes_uniform");
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  for (std::size_t i = n; i > 1; --i) {
    const std::size_t j = randombytes_uniform(static_cast<uint32_t>(i));
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

long long rounded_gaussian(double sigma) {
  if (sigma <= 0) return 0;
  // Box-Muller; one of the pair is enough.
  const double r = std::sqrt(-2.0 * std::log(uniform_open0()));
  const double z = r * std::cos(2.0 * M_PI * uniform_open0());
  return std::llround(z * sigma);
}

bool crowd_survives(std::size_t count, const ThresholdPolicy& policy) {
  const long long noisy = static_cast<long long>(count) + rounded_gaussian(policy.noise_sigma);
  return noisy >= static_cast<long long>(policy.threshold);
}

std::vector<std::size_t> shuffle_and_threshold(const std::vector<uint32_t>& crowd_ids,
                                               const ThresholdPolicy& policy) {
  std::unordered_map<uint32_t, std::size_t> counts;
  for (uint32_t c : crowd_ids) ++counts[c];
  std::unordered_map<uint32_t, bool> released;
  for (const auto& [crowd, count] : counts) released[crowd] = crowd_survives(count, policy);

  std::vector<std::size_t> kept;
  for (std::size_t i : csprng_permutation(crowd_ids.size())) {
    if (released[crowd_ids[i]]) kept.push_back(i);
  }
  return kept;
}

}  // namespace p2b::shuffler
