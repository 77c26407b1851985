// xoshiro256++ (Blackman and Vigna, 2019), seeded by SplitMix64: the
// simulator's per-user generator. Its output is fixed by its definition, so
// it is portable like std::mt19937_64, but seeding costs four SplitMix64
// steps instead of mt19937_64's 312-word state and its first 312-word
// refill, which at about 200 draws per user was most of the generator's cost.
#pragma once

#include <cstdint>

namespace p2b::sim {

class Xoshiro256 {
 public:
  explicit Xoshiro256(uint64_t seed) {
    // SplitMix64 outputs are distinct, so the state is never all zero.
    for (uint64_t& w : s_) {
      uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      w = z ^ (z >> 31);
    }
  }
  uint64_t operator()() {
    const uint64_t out = rotl(s_[0] + s_[3], 23) + s_[0];
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return out;
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4]{};
};

}  // namespace p2b::sim
