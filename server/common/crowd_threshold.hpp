// The crowd-threshold decision, shared by the shuffler (on the crowd ids it
// counts) and the analyzer (again, on the reports that proved valid). Both
// sides must draw the same kind of noise: a plain threshold behind a noisy
// one would restore the sharp edge the noise removes (docs/shuffler.md).
#pragma once

#include <cstddef>
#include <cstdint>

namespace p2b::common {

// Where the randomness comes from. Production uses the CSPRNG (libsodium);
// simulations and tests pass a seeded source so that a run repeats.
class Randomness {
 public:
  virtual ~Randomness() = default;
  virtual uint32_t uniform(uint32_t n) = 0;  // unbiased, in [0, n)
  virtual double unit_open0() = 0;           // uniform on (0, 1]
};

// libsodium's randombytes: the services' source.
Randomness& csprng();

struct ThresholdPolicy {
  std::size_t threshold = 10;  // L
  double noise_sigma = 0;      // 0: the plain, deterministic threshold
};

// round(N(0, sigma^2)); exactly 0 when sigma is 0.
long long rounded_gaussian(double sigma, Randomness& rng = csprng());

// Whether a crowd of `count` records is released: count + round(Z) >= L.
bool crowd_survives(std::size_t count, const ThresholdPolicy& policy, Randomness& rng = csprng());

}  // namespace p2b::common
