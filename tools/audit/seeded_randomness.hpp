// A seeded stand-in for the services' CSPRNG (common::Randomness), so that
// the audit drives the shuffler's own thresholding code and still repeats
// under --seed. Never used by a service.
#pragma once

#include <cstdint>

#include "common/crowd_threshold.hpp"

namespace p2b::audit {

class SeededRandomness final : public common::Randomness {
 public:
  explicit SeededRandomness(uint64_t seed) : state_(seed) {}
  uint64_t next();
  uint32_t uniform(uint32_t n) override;
  double unit_open0() override;

 private:
  uint64_t state_;
};

}  // namespace p2b::audit
