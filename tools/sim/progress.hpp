// A one-line progress bar on stderr, redrawn in place, for long tool runs.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>

namespace p2b::sim {

inline void progress(const char* stage, double done, double total) {
  const int width = 30;
  const int filled = static_cast<int>(width * done / total);
  std::fprintf(stderr, "\r  %-26s [%.*s%*s] %5.1f%%", stage, filled,
               "##############################", width - filled, "", 100.0 * done / total);
  if (done >= total) std::fputc('\n', stderr);
  std::fflush(stderr);
}

// Redraws the bar every half second from a thread of its own while the
// caller's workers count `done` up to `total`; stop() (or the destructor)
// ends it, so an exception from the workers cannot leave it running.
class ProgressThread {
 public:
  ProgressThread(const char* stage, double total, const std::atomic<uint64_t>& done, bool quiet)
      : thread_([this, stage, total, &done, quiet] {
          while (!quiet && !stop_.load()) {
            progress(stage, static_cast<double>(done.load()), total);
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
          }
        }) {}
  ProgressThread(const ProgressThread&) = delete;
  ProgressThread& operator=(const ProgressThread&) = delete;
  ~ProgressThread() { stop(); }

  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};  // before thread_: the thread reads it from its start
  std::thread thread_;
};

}  // namespace p2b::sim
