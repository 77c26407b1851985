// Work split into fixed chunks that any thread may take. Results are indexed
// by chunk and merged in chunk order by the caller, so a run gives the same
// numbers whatever the thread count.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace p2b::sim {

template <typename Fn>
void for_each_chunk(std::size_t n_chunks, unsigned threads, Fn&& fn) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&] {
    for (std::size_t c = next++; c < n_chunks; c = next++) {
      try {
        fn(c);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next = n_chunks;  // stop handing out work
      }
    }
  };
  const unsigned n = std::max(1U, std::min<unsigned>(threads, static_cast<unsigned>(n_chunks)));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

// A seed for item `i` of stream `stream`, decorrelated from its neighbours.
inline uint64_t mix_seed(uint64_t seed, uint64_t stream, uint64_t i) {
  uint64_t z = seed * 0x9e3779b97f4a7c15ULL + stream * 0xd1b54a32d192ed03ULL + i;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace p2b::sim
