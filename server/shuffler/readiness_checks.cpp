#include "shuffler/readiness_checks.hpp"

#include <string>

namespace p2b::shuffler {

common::CheckResult batcher_check(const BatcherStatus& s) {
  if (!s.running) return common::check_failed("the batcher thread has stopped");
  if (s.closing.consecutive >= kPersistentCloseFailures) {
    return common::check_failed("closing batches failed " + std::to_string(s.closing.consecutive) +
                                " times in a row: " + s.closing.reason);
  }
  if (s.closing.failing) return common::check_ok("retrying a failed close: " + s.closing.reason);
  return common::check_ok();
}

common::CheckResult delivery_check(const BatcherStatus& s, std::chrono::milliseconds grace) {
  std::string detail = std::to_string(s.unacknowledged_batches) + " batches unacknowledged";
  if (s.unacknowledged_batches > 0) {
    detail += ", the oldest for " + std::to_string(s.oldest_unacknowledged_age.count()) + " s";
  }
  if (!s.delivery.failing) return common::check_ok(detail);
  const auto failing_s =
      std::chrono::duration_cast<std::chrono::seconds>(s.delivery.failing_for).count();
  detail += "; failing for " + std::to_string(failing_s) + " s (" +
            std::to_string(s.delivery.consecutive) + " tries): " + s.delivery.reason;
  // A configuration error will not pass by itself: no grace.
  if (s.delivery.configuration || s.delivery.failing_for > grace) {
    return common::check_failed(detail);
  }
  return common::check_ok(detail);
}

common::CheckResult disk_check(DiskGuard& disk) {
  const uint64_t free = disk.free_bytes();
  std::string detail =
      std::to_string(free) + " bytes free, --min-free-disk " + std::to_string(disk.min_free());
  if (disk.low()) return common::check_failed(detail + ": new reports get 507");
  return common::check_ok(detail);
}

common::CheckResult quarantine_check(uint64_t quarantined) {
  if (quarantined == 0) return common::check_ok("empty");
  return common::check_ok(std::to_string(quarantined) +
                          " records set aside; see p2b-shuffler quarantine list");
}

}  // namespace p2b::shuffler
