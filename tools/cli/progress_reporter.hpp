// Reports a run's progress through RunHooks from one thread of its own while
// the run's workers count `done` up: the hooks are called from one thread at
// a time and a few times a second, as run_hooks.hpp promises, however many
// workers there are. Without a progress hook no thread is started.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "cli/run_hooks.hpp"

namespace p2b::tools {

class ProgressReporter {
 public:
  ProgressReporter(const RunHooks& hooks, std::string stage, uint64_t total,
                   const std::atomic<uint64_t>& done)
      : hooks_(hooks), stage_(std::move(stage)), total_(total), done_(done) {
    if (hooks_.progress) thread_ = std::thread([this] { loop(); });
  }
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;
  ~ProgressReporter() { stop(); }

  // Ends the thread; with `finished`, reports the stage complete from the
  // caller's thread (the last report a caller sees says 100%).
  void stop(bool finished = false) {
    {
      const std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (finished) hooks_.report(stage_, total_, total_);
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      hooks_.report(stage_, std::min(done_.load(std::memory_order_relaxed), total_), total_);
      // Woken early by stop(), so a short run does not wait out the period.
      wake_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stop_; });
    }
  }

  const RunHooks& hooks_;
  std::string stage_;
  uint64_t total_;
  const std::atomic<uint64_t>& done_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;  // last: started once every field above is set
};

}  // namespace p2b::tools
