// Per-item random streams of the simulator. Work runs in fixed chunks (the
// tools' parallel_for) and each chunk draws from its own stream, so a run
// gives the same numbers whatever the thread count.
#pragma once

#include <cstdint>

namespace p2b::sim {

// A seed for item `i` of stream `stream`, decorrelated from its neighbours.
inline uint64_t mix_seed(uint64_t seed, uint64_t stream, uint64_t i) {
  uint64_t z = seed * 0x9e3779b97f4a7c15ULL + stream * 0xd1b54a32d192ed03ULL + i;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace p2b::sim
