// Process counters for GET /metrics (Prometheus text format 0.0.4). They
// count since this process started, as Prometheus counters do; the model
// version gauges come from the store, so they survive restarts.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

#include "common/http_limits.hpp"
#include "common/store_health.hpp"

namespace p2b::analyzer {

// Why a record of a verified batch was not applied; the label of the
// rejected counter. In the order the checks run (batch_opener.hpp). Every
// reason but replayed and below_threshold (refusals by design) puts the
// record in quarantine (is_quarantined).
enum class RejectReason : int {
  wrong_length,
  replayed,  // its inner ciphertext was seen before (an earlier batch or record)
  unknown_key,
  decrypt_failed,
  malformed,
  crowd_mismatch,  // the inner code is not the crowd id the shuffler counted
  code_out_of_range,
  action_out_of_range,
  below_threshold,  // valid, but fewer than l valid reports share its crowd
};
constexpr int kRejectReasons = 9;
const char* reject_reason_name(RejectReason r);
// True if a record refused for `r` is kept in quarantine rather than dropped.
constexpr bool is_quarantined(RejectReason r) {
  return r != RejectReason::replayed && r != RejectReason::below_threshold;
}

using RejectCounts = std::array<uint64_t, kRejectReasons>;

// Why a whole POST /v1/batches was refused before anything was written
// (for conflict, after comparing with the stored digest; for
// quarantine_full, after opening its records).
enum class BatchRefusal : int {
  malformed,
  unknown_signer,
  bad_signature,
  conflict,
  quarantine_full,
  too_large,           // over --max-batch-records or --max-body, refused unread
  threshold_mismatch,  // signed with another l or sigma than this analyzer's
};
constexpr int kBatchRefusals = 7;

// What became of quarantined records retried at start.
enum class ReleaseOutcome : int { applied, replayed, below_threshold };
constexpr int kReleaseOutcomes = 3;
const char* batch_refusal_name(BatchRefusal r);

class Metrics {
 public:
  void batch_applied(uint64_t records, const RejectCounts& rejected);
  void batch_duplicate() { ++batches_duplicate_; }
  void batch_refused(BatchRefusal r) { ++refused_[static_cast<int>(r)]; }
  void raw_applied(uint64_t records);
  // By reason; the quarantine reasons' counts only.
  void records_quarantined(const RejectCounts& by_reason);
  void records_released(ReleaseOutcome o, uint64_t n) { released_[static_cast<int>(o)] += n; }
  void set_quarantine_size(uint64_t n) { quarantine_size_ = n; }
  uint64_t quarantine_size() const { return quarantine_size_; }
  void set_model_version(uint64_t v) { model_version_ = v; }
  void set_raw_model_version(uint64_t v) { raw_model_version_ = v; }
  // Central DP (listed only once set): its budget and what is left of it.
  void set_central_dp(double epsilon, double delta, uint64_t releases_left) {
    central_epsilon_ = epsilon;
    central_delta_ = delta;
    central_releases_left_ = releases_left;
  }
  void central_dp_refused() { ++central_dp_refused_; }
  // Adds p2b_analyzer_store_errors_total and _store_failed (store_health.hpp).
  void set_store_health(const common::StoreHealth* health) { store_health_ = health; }

  std::string prometheus_text() const;

  // The HTTP layer's refusals (common/bounded_server.hpp).
  common::HttpCounters& http() { return http_; }

 private:
  common::HttpCounters http_;
  const common::StoreHealth* store_health_ = nullptr;
  std::atomic<uint64_t> batches_applied_{0};
  std::atomic<uint64_t> batches_duplicate_{0};
  std::array<std::atomic<uint64_t>, kBatchRefusals> refused_{};
  std::atomic<uint64_t> records_applied_{0};
  std::array<std::atomic<uint64_t>, kRejectReasons> rejected_{};
  std::array<std::atomic<uint64_t>, kRejectReasons> quarantined_{};
  std::array<std::atomic<uint64_t>, kReleaseOutcomes> released_{};
  std::atomic<uint64_t> quarantine_size_{0};
  std::atomic<uint64_t> raw_requests_applied_{0};
  std::atomic<uint64_t> raw_records_applied_{0};
  std::atomic<uint64_t> model_version_{0};
  std::atomic<uint64_t> raw_model_version_{0};
  std::atomic<double> central_epsilon_{0.0};
  std::atomic<double> central_delta_{0.0};
  std::atomic<uint64_t> central_releases_left_{0};
  std::atomic<uint64_t> central_dp_refused_{0};
};

}  // namespace p2b::analyzer
