// Small counter-derived random streams: every chunk of work gets its own
// stream from (seed, purpose, index), so results never depend on which thread
// ran the chunk or in what order.
#pragma once

#include <cstdint>

namespace p2b::codebook {

// SplitMix64 finaliser: a bijective mix, used to derive stream keys.
inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// SplitMix64 generator: tiny state, statistically fine for sampling.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  Rng(uint64_t seed, uint64_t purpose, uint64_t index)
      : s_(mix64(seed ^ mix64(purpose ^ mix64(index + 0x9e3779b97f4a7c15ULL)))) {}

  uint64_t next() {
    s_ += 0x9e3779b97f4a7c15ULL;
    return mix64(s_);
  }
  // [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // [0, n) by multiply-shift; the bias is below 2^-32 for the n used here.
  uint64_t below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }

 private:
  uint64_t s_;
};

// Stream purposes, so two uses of one seed never share a stream.
enum StreamPurpose : uint64_t {
  kStreamSeeding = 1,
  kStreamBatch = 2,
  kStreamSample = 3,
};

}  // namespace p2b::codebook
