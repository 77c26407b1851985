#include "shuffler/disk_guard.hpp"

#include <sys/statvfs.h>

#include <utility>

#include "common/json_log.hpp"

namespace p2b::shuffler {

DiskGuard::DiskGuard(std::string path, uint64_t min_free, Metrics& metrics,
                     std::chrono::milliseconds interval)
    : path_(std::move(path)), min_free_(min_free), metrics_(metrics), interval_(interval) {}

void DiskGuard::refresh_locked(Clock::time_point now) {
  if (checked_ && now - checked_at_ < interval_) return;
  checked_ = true;
  checked_at_ = now;
  struct statvfs fs {};
  if (statvfs(path_.c_str(), &fs) != 0) return;
  // f_bavail: what an unprivileged writer may use, as the spool is one.
  free_ = static_cast<uint64_t>(fs.f_bavail) * static_cast<uint64_t>(fs.f_frsize);
  metrics_.disk_free_bytes = free_;
  const bool low = min_free_ > 0 && free_ < min_free_;
  if (low != low_) {
    if (low) {
      common::service_log().error("disk_space_low",
                                  {{"free_bytes", free_}, {"min_free_disk", min_free_}});
    } else {
      common::service_log().info("disk_space_recovered",
                                 {{"free_bytes", free_}, {"min_free_disk", min_free_}});
    }
  }
  low_ = low;
  metrics_.disk_low = low;
}

bool DiskGuard::low() {
  const std::lock_guard<std::mutex> lock(mu_);
  refresh_locked(Clock::now());
  return low_;
}

uint64_t DiskGuard::free_bytes() {
  const std::lock_guard<std::mutex> lock(mu_);
  refresh_locked(Clock::now());
  return free_;
}

}  // namespace p2b::shuffler
