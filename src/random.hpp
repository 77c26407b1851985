// Randomness for the core: a seeded xoshiro256** generator for reproducible
// runs, or a port-provided CSPRNG. Gaussians come from our own code so that one
// seed yields bit-identical draws on x86, aarch64, armhf and Cortex-M.
#pragma once

#include <cstdint>

#include "p2b/config.hpp"
#include "p2b/status.hpp"

namespace p2b {

// Natural log built only from IEEE basic operations, so results do not depend
// on the platform's libm. Relative error below 1e-15 for finite x > 0.
double portable_log(double x);

// epsilon of one report under pre-sampling with probability p followed by
// (l, 0)-crowd-blending (P2B paper, section 4). Requires 0 < p < 1.
double epsilon_per_report(double p);

class Rng {
 public:
  void init_seeded(uint64_t seed);
  void init_source(RandomSource source);

  Status next_u64(uint64_t* out);
  Status uniform(double* out);   // in [0, 1), 53 random bits
  Status gaussian(double* out);  // standard normal

  // The seeded generator's full state, for save/restore.
  struct State {
    uint64_t s[4];
    uint64_t spare_bits;  // bit pattern of the cached Gaussian
    uint32_t has_spare;
    uint32_t deterministic;
  };
  State state() const;
  void set_state(const State& st);  // keeps the current random source
  // Whether a saved state is one a generator can be in. A seeded state of all
  // zeros is xoshiro's fixed point: it would return 0 forever and the
  // Gaussian draw's rejection loop would never end. A cached Gaussian must be
  // finite.
  static bool restorable(const State& st);

 private:
  uint64_t s_[4] = {0, 0, 0, 0};
  double spare_ = 0.0;
  bool has_spare_ = false;
  bool deterministic_ = false;
  RandomSource source_{};
};

}  // namespace p2b
