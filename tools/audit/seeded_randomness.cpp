#include "audit/seeded_randomness.hpp"

#include "audit/audit_case.hpp"

namespace p2b::audit {

uint64_t mix_seed(uint64_t seed, uint64_t stream) {
  uint64_t z = seed + (stream + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t SeededRandomness::next() {
  state_ += 0x9e3779b97f4a7c15ULL;
  return mix_seed(state_, 0);
}

// Rejection keeps the draw unbiased, as randombytes_uniform does.
uint32_t SeededRandomness::uniform(uint32_t n) {
  if (n <= 1) return 0;
  const uint32_t limit = static_cast<uint32_t>(-n) % n;
  for (;;) {
    const auto r = static_cast<uint32_t>(next() >> 32);
    if (r >= limit) return r % n;
  }
}

double SeededRandomness::unit_open0() {
  return static_cast<double>((next() >> 11) + 1) * 0x1.0p-53;
}

}  // namespace p2b::audit
