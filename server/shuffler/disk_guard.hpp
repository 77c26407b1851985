// Keeps the spool's filesystem from filling up: while less than `min_free`
// bytes are free, new reports are refused (507), so the space left is
// headroom for what drains the spool (closing batches and the deletes of
// acknowledged ones, which need WAL pages of their own). Free space is read
// with statvfs at most once per `interval`, so a flood of requests costs no
// more than one system call a second. Logged once per change of state.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

#include "shuffler/metrics.hpp"

namespace p2b::shuffler {

class DiskGuard {
 public:
  using Clock = std::chrono::steady_clock;

  // `path`: any file or directory on the spool's filesystem. `min_free` 0
  // turns the guard off.
  DiskGuard(std::string path, uint64_t min_free, Metrics& metrics,
            std::chrono::milliseconds interval = std::chrono::seconds(1));

  // True while free space is below the minimum (as last read; rereads it
  // when older than the interval). A failed statvfs counts as not low:
  // the spool's own errors then say what is wrong.
  bool low();

  uint64_t min_free() const { return min_free_; }
  uint64_t free_bytes();

 private:
  void refresh_locked(Clock::time_point now);

  const std::string path_;
  const uint64_t min_free_;
  Metrics& metrics_;
  const std::chrono::milliseconds interval_;
  std::mutex mu_;
  bool checked_ = false;
  Clock::time_point checked_at_{};
  uint64_t free_ = 0;
  bool low_ = false;
};

}  // namespace p2b::shuffler
