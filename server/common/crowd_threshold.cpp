#include "common/crowd_threshold.hpp"

#include <sodium.h>

#include <cmath>

namespace p2b::common {

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

}  // namespace p2b::common
