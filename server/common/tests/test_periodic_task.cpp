// The one helper for periodic work: runs on its own thread, never waits a
// period to stop, survives a run that throws. Driven by run_now() and by
// counting runs, so no test waits on a clock: each wait is on a run's
// notification, with a bound far beyond the event.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>

#include "common/periodic_task.hpp"

namespace {

using p2b::common::PeriodicTask;
using std::chrono::hours;
using std::chrono::milliseconds;

constexpr milliseconds kBound{60000};  // only a hang would reach it

// Starts `task`, has it run twice by run_now(), each run seen, then stops it.
bool start_and_run_twice(PeriodicTask& task) {
  task.start();
  for (uint64_t n = 1; n <= 2; ++n) {
    task.run_now();
    if (!task.wait_for_runs(n, kBound)) return false;
  }
  task.stop();
  return true;
}

TEST(CommonPeriodicTask, RunsEveryPeriod) {
  std::atomic<int> calls{0};
  PeriodicTask task(milliseconds(1), [&] { ++calls; });
  task.start();
  ASSERT_TRUE(task.wait_for_runs(3, kBound));
  task.stop();
  EXPECT_GE(calls.load(), 3);
  EXPECT_EQ(static_cast<uint64_t>(calls.load()), task.runs());
}

TEST(CommonPeriodicTask, RunNowRunsWithoutWaitingThePeriod) {
  std::atomic<int> calls{0};
  PeriodicTask task(hours(1), [&] { ++calls; });
  ASSERT_TRUE(start_and_run_twice(task));
  EXPECT_EQ(calls.load(), 2);
}

// stop() wakes the thread: with an hour's period, a stop that waited would
// hang the test until ctest's timeout.
TEST(CommonPeriodicTask, StopWakesTheThreadAtOnceAndIsIdempotent) {
  std::atomic<int> calls{0};
  PeriodicTask task(hours(1), [&] { ++calls; });
  task.start();
  task.stop();
  task.stop();
  EXPECT_EQ(calls.load(), 0);
  EXPECT_EQ(task.runs(), 0U);
}

TEST(CommonPeriodicTask, NeverStartedStopsAndDestroys) {
  PeriodicTask task(hours(1), [] {});
  task.stop();
  task.start();  // after a stop: nothing starts
  task.run_now();
  EXPECT_FALSE(task.wait_for_runs(1, milliseconds(1)));
}

TEST(CommonPeriodicTask, AThrowingRunIsReportedAndTheTaskGoesOn) {
  std::string error;
  std::atomic<int> calls{0};
  PeriodicTask task(
      hours(1),
      [&] {
        if (++calls == 1) throw std::runtime_error("store busy");
      },
      [&](const std::string& what) { error = what; });
  ASSERT_TRUE(start_and_run_twice(task));
  EXPECT_EQ(error, "store busy");
  EXPECT_EQ(calls.load(), 2);
}

TEST(CommonPeriodicTask, TheDestructorStopsARunningTask) {
  std::atomic<int> calls{0};
  {
    PeriodicTask task(hours(1), [&] { ++calls; });
    task.start();
  }
  EXPECT_EQ(calls.load(), 0);
}

}  // namespace
