// Counters for /metrics. They count since the process started, as
// Prometheus counters do; only the spool depth is read from storage.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "common/http_limits.hpp"
#include "common/store_health.hpp"
#include "wire/envelope_open.hpp"

namespace p2b::shuffler {

// Why a POST /v1/reports was refused; each maps to one label and status.
enum class Rejection {
  wrong_length,
  too_large,
  unknown_key,
  decrypt_failed,
  malformed,
  insufficient_storage,  // the spool's disk is below --min-free-disk
  key_retired,           // sealed to a key whose epoch was retired
};
constexpr int kRejections = 7;

const char* rejection_label(Rejection r);
// The rejection for a failed open_outer (which must not be ok).
Rejection rejection_for(server::OpenStatus s);

struct Metrics {
  std::atomic<uint64_t> received{0};
  std::atomic<uint64_t> rejected[kRejections] = {};  // indexed by Rejection
  std::atomic<uint64_t> duplicates{0};               // the same envelope again
  std::atomic<uint64_t> inner_duplicates{0};         // a seen inner in a fresh outer layer
  std::atomic<uint64_t> thresholded{0};
  std::atomic<uint64_t> forwarded{0};
  std::atomic<uint64_t> batches{0};
  std::atomic<uint64_t> forward_failures{0};
  common::HttpCounters http;  // the HTTP layer's refusals (common/bounded_server.hpp)
  // 200 answers without a valid ack of the batch sent (counted as failures too).
  std::atomic<uint64_t> bad_acks{0};
  // Insert transactions committed (group commit: one per group of requests).
  std::atomic<uint64_t> insert_commits{0};
  // Set by the batcher (batcher.hpp) and the disk guard (disk_guard.hpp).
  std::atomic<uint64_t> close_failures{0};
  std::atomic<bool> close_failing{false};
  std::atomic<bool> delivery_failing{false};
  // The analyzer refuses this shuffler's --threshold/--noisy-threshold
  // (409 threshold_mismatch): tries so refused, and 1 while it lasts.
  std::atomic<uint64_t> threshold_mismatches{0};
  std::atomic<bool> delivery_misconfigured{false};
  // Batches acknowledged only once re-signed by an earlier signing key
  // (a rotation while they awaited their ack; batcher.hpp, BatchKeys).
  std::atomic<uint64_t> previous_key_acks{0};
  std::atomic<uint64_t> delivery_consecutive_failures{0};
  std::atomic<uint64_t> unacknowledged_batches{0};
  // steady_clock milliseconds since its epoch at which this process first
  // tried to deliver the oldest unacknowledged batch; -1: none waiting.
  std::atomic<int64_t> oldest_unacknowledged_since_ms{-1};
  std::atomic<uint64_t> disk_free_bytes{0};
  std::atomic<bool> disk_low{false};
  // Records set aside instead of sent (spool.hpp, QuarantineEntry): the
  // quarantine's size as last read, and those this process set aside because
  // their row failed its checksum.
  std::atomic<uint64_t> quarantined{0};
  std::atomic<uint64_t> damaged_in_spool{0};

  void reject(Rejection r) { rejected[static_cast<int>(r)].fetch_add(1); }

  // Prometheus text exposition format 0.0.4; no depth gauge when the spool
  // cannot be read; the store's errors when it keeps a health record.
  std::string render(std::optional<std::size_t> spool_depth,
                     const common::StoreHealth* store = nullptr) const;
};

}  // namespace p2b::shuffler
