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
enum class Rejection { wrong_length, too_large, unknown_key, decrypt_failed, malformed };

const char* rejection_label(Rejection r);
// The rejection for a failed open_outer (which must not be ok).
Rejection rejection_for(server::OpenStatus s);

struct Metrics {
  std::atomic<uint64_t> received{0};
  std::atomic<uint64_t> rejected[5] = {};     // indexed by Rejection
  std::atomic<uint64_t> duplicates{0};        // the same envelope again
  std::atomic<uint64_t> inner_duplicates{0};  // a seen inner in a fresh outer layer
  std::atomic<uint64_t> thresholded{0};
  std::atomic<uint64_t> forwarded{0};
  std::atomic<uint64_t> batches{0};
  std::atomic<uint64_t> forward_failures{0};
  common::HttpCounters http;  // the HTTP layer's refusals (common/bounded_server.hpp)
  // 200 answers without a valid ack of the batch sent (counted as failures too).
  std::atomic<uint64_t> bad_acks{0};
  // Insert transactions committed (group commit: one per group of requests).
  std::atomic<uint64_t> insert_commits{0};

  void reject(Rejection r) { rejected[static_cast<int>(r)].fetch_add(1); }

  // Prometheus text exposition format 0.0.4; no depth gauge when the spool
  // cannot be read; the store's errors when it keeps a health record.
  std::string render(std::optional<std::size_t> spool_depth,
                     const common::StoreHealth* store = nullptr) const;
};

}  // namespace p2b::shuffler
