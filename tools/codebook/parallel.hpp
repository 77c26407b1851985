// The trainer's chunked loops. Work is split into chunks whose boundaries
// depend only on the problem size, never on the thread count, and run with
// the tools' shared parallel_for; anything a chunk writes is its own, and
// callers reduce per-chunk results in chunk order, which is what makes runs
// bit-for-bit identical for 1 or N threads.
#pragma once

#include <cstddef>

#include "parallel/parallel_for.hpp"

namespace p2b::codebook {

using tools::parallel_for;

// Points per chunk in every chunked loop of the trainer.
constexpr std::size_t kChunk = 2048;

inline std::size_t chunk_count(std::size_t n, std::size_t chunk = kChunk) {
  return (n + chunk - 1) / chunk;
}

}  // namespace p2b::codebook
