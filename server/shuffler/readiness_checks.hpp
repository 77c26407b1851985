// The shuffler's own /readyz checks (common/readiness.hpp): each reads a
// status the batcher or the disk guard already keeps, so it is cheap and
// never waits for the work it reports on.
#pragma once

#include <chrono>

#include "common/readiness.hpp"
#include "shuffler/batcher.hpp"
#include "shuffler/disk_guard.hpp"

namespace p2b::shuffler {

// Closing a batch failed this many times in a row: a persistent fault (the
// spool), not a passing one.
constexpr uint64_t kPersistentCloseFailures = 3;

// "batcher": fails if its thread stopped or closing fails persistently.
common::CheckResult batcher_check(const BatcherStatus& s);
// "delivery": the backlog and the last error; fails once delivery has been
// failing for longer than `grace`, or at once on a configuration error (the
// analyzer refuses this shuffler's thresholds).
common::CheckResult delivery_check(const BatcherStatus& s, std::chrono::milliseconds grace);
// "disk": fails while new reports are refused for lack of space.
common::CheckResult disk_check(DiskGuard& disk);
// "quarantine": passes, and names how many records were set aside, so that
// /readyz shows a non-empty quarantine. It does not fail: the records are
// already out of the data path, and new reports are still taken and sent
// (docs/operations.md, "Quarantine").
common::CheckResult quarantine_check(uint64_t quarantined);

}  // namespace p2b::shuffler
