#include "codebook/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace p2b::codebook {

void parallel_for(std::size_t tasks, unsigned threads,
                  const std::function<void(std::size_t)>& body) {
  const std::size_t workers = std::min<std::size_t>(std::max(1U, threads), tasks);
  if (workers <= 1) {
    for (std::size_t i = 0; i < tasks; ++i) body(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  auto run = [&] {
    for (std::size_t i = next++; i < tasks; i = next++) body(i);
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (std::size_t t = 1; t < workers; ++t) pool.emplace_back(run);
  run();
  for (auto& th : pool) th.join();
}

}  // namespace p2b::codebook
