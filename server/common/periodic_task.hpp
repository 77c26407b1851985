// The one helper for a service's periodic work (a retention sweep, a phase
// clock, a poller): `work` runs on its own thread every `period`, never two
// runs at once, until stop(). stop() wakes the thread at once rather than
// after the period, then waits for a run in progress to end, so a service
// stops within its drain however long the period is.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace p2b::common {

class PeriodicTask {
 public:
  using Period = std::chrono::steady_clock::duration;
  // Called with what a run threw; the task goes on with the next period.
  using ErrorHandler = std::function<void(const std::string& what)>;

  PeriodicTask(Period period, std::function<void()> work, ErrorHandler on_error = {});
  ~PeriodicTask();  // stop()
  PeriodicTask(const PeriodicTask&) = delete;
  PeriodicTask& operator=(const PeriodicTask&) = delete;

  // Starts the thread; the first run is one period from now. Once only.
  void start();
  // Wakes the thread, lets a run in progress finish, joins. Idempotent.
  void stop();
  // Asks for a run now instead of at the end of the period (an operator's
  // "do it now", and how tests drive the task without waiting a period).
  void run_now();

  // Runs completed (returned or threw) so far.
  uint64_t runs() const;
  // Waits until runs() >= n or `limit` passed, on each run's notification,
  // not by polling; true if reached. For tests and callers that must see a
  // run happen.
  bool wait_for_runs(uint64_t n, std::chrono::milliseconds limit) const;

 private:
  void loop();
  void run_once();

  const Period period_;
  const std::function<void()> work_;
  const ErrorHandler on_error_;
  mutable std::mutex mu_;
  mutable std::condition_variable wake_;  // stop, run_now
  mutable std::condition_variable ran_;   // a run ended
  bool stopping_ = false;
  bool kicked_ = false;
  uint64_t runs_ = 0;
  std::thread thread_;
};

}  // namespace p2b::common
