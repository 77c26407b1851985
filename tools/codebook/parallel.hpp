// Fixed-chunk parallel loop. Work is split into chunks whose boundaries
// depend only on the problem size, never on the thread count; threads take
// chunks from a shared counter. Anything a chunk writes is its own, and
// callers reduce per-chunk results in chunk order, which is what makes runs
// bit-for-bit identical for 1 or N threads.
#pragma once

#include <cstddef>
#include <functional>

namespace p2b::codebook {

// Points per chunk in every chunked loop of the trainer.
constexpr std::size_t kChunk = 2048;

inline std::size_t chunk_count(std::size_t n, std::size_t chunk = kChunk) {
  return (n + chunk - 1) / chunk;
}

// Calls body(i) for every i in [0, tasks), on up to `threads` threads.
void parallel_for(std::size_t tasks, unsigned threads,
                  const std::function<void(std::size_t)>& body);

}  // namespace p2b::codebook
