// The tools' shared parallel_for: every task runs once, a failing task's
// exception reaches the caller, and a call from inside a task completes.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "parallel/parallel_for.hpp"

namespace {

using p2b::tools::parallel_for;

TEST(ParallelFor, EveryTaskRunsExactlyOnce) {
  for (unsigned threads : {1U, 2U, 8U}) {
    std::vector<std::atomic<int>> runs(10'000);
    parallel_for(runs.size(), threads, [&](std::size_t i) { ++runs[i]; });
    for (const auto& r : runs) ASSERT_EQ(r.load(), 1) << threads << " threads";
  }
}

TEST(ParallelFor, NoTasksCallsNothing) {
  int calls = 0;
  parallel_for(0, 2, [&](std::size_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(ParallelFor, FirstFailureIsRethrownAndLaterTasksStop) {
  for (unsigned threads : {1U, 2U}) {
    std::atomic<std::size_t> ran{0};
    EXPECT_THROW(parallel_for(100'000, threads,
                              [&](std::size_t i) {
                                ++ran;
                                if (i == 10) throw std::runtime_error("task 10");
                              }),
                 std::runtime_error);
    EXPECT_LT(ran.load(), 100'000U) << threads << " threads";
  }
  // The pool is usable after a failure.
  std::atomic<int> sum{0};
  parallel_for(100, 2, [&](std::size_t i) { sum += static_cast<int>(i); });
  EXPECT_EQ(sum.load(), 4950);
}

TEST(ParallelFor, NestedCallRunsInsideTheTask) {
  std::vector<std::atomic<int>> runs(std::size_t{8} * 16);
  parallel_for(8, 2, [&](std::size_t outer) {
    parallel_for(16, 2, [&](std::size_t inner) { ++runs[outer * 16 + inner]; });
  });
  for (const auto& r : runs) ASSERT_EQ(r.load(), 1);
}

}  // namespace
