#include "metrics.hpp"

#include <cstdio>
#include <utility>
#include <vector>

#include "common/prometheus_text.hpp"

namespace p2b::analyzer {

namespace {

// A gauge with a real value (PrometheusText's are integers).
std::string real_gauge(const std::string& name, const std::string& help, double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", value);
  return "# HELP " + name + ' ' + help + "\n# TYPE " + name + " gauge\n" + name + ' ' + buf + '\n';
}

}  // namespace

const char* reject_reason_name(RejectReason r) {
  switch (r) {
    case RejectReason::wrong_length:
      return "wrong_length";
    case RejectReason::replayed:
      return "replayed";
    case RejectReason::unknown_key:
      return "unknown_key";
    case RejectReason::decrypt_failed:
      return "decrypt_failed";
    case RejectReason::malformed:
      return "malformed";
    case RejectReason::code_out_of_range:
      return "code_out_of_range";
    case RejectReason::crowd_mismatch:
      return "crowd_mismatch";
    case RejectReason::action_out_of_range:
      return "action_out_of_range";
    case RejectReason::below_threshold:
      return "below_threshold";
  }
  return "unknown";
}

const char* batch_refusal_name(BatchRefusal r) {
  switch (r) {
    case BatchRefusal::malformed:
      return "malformed";
    case BatchRefusal::unknown_signer:
      return "unknown_signer";
    case BatchRefusal::bad_signature:
      return "bad_signature";
    case BatchRefusal::conflict:
      return "conflict";
    case BatchRefusal::quarantine_full:
      return "quarantine_full";
    case BatchRefusal::too_large:
      return "too_large";
    case BatchRefusal::threshold_mismatch:
      return "threshold_mismatch";
  }
  return "malformed";
}

void Metrics::batch_applied(uint64_t records, const RejectCounts& rejected) {
  ++batches_applied_;
  records_applied_ += records;
  for (int i = 0; i < kRejectReasons; ++i) rejected_[i] += rejected[i];
}

void Metrics::records_quarantined(const RejectCounts& by_reason) {
  for (int i = 0; i < kRejectReasons; ++i) {
    if (is_quarantined(static_cast<RejectReason>(i))) quarantined_[i] += by_reason[i];
  }
}

void Metrics::raw_applied(uint64_t records) {
  ++raw_requests_applied_;
  raw_records_applied_ += records;
}

std::string Metrics::prometheus_text() const {
  common::PrometheusText out;
  out.counter("p2b_analyzer_batches_applied_total", "Batches applied.", batches_applied_);
  out.counter("p2b_analyzer_batches_duplicate_total",
              "Batches acknowledged again without applying: their id was already applied.",
              batches_duplicate_);
  std::vector<std::pair<std::string, uint64_t>> refused;
  refused.reserve(kBatchRefusals);
  for (int i = 0; i < kBatchRefusals; ++i) {
    refused.emplace_back(batch_refusal_name(static_cast<BatchRefusal>(i)), refused_[i]);
  }
  out.labelled_counter("p2b_analyzer_batches_refused_total",
                       "Batches refused whole, by reason: nothing was changed.", "reason", refused);
  out.counter("p2b_analyzer_records_applied_total", "Reports that updated the statistics.",
              records_applied_);
  std::vector<std::pair<std::string, uint64_t>> by_reason;
  by_reason.reserve(kRejectReasons);
  for (int i = 0; i < kRejectReasons; ++i) {
    by_reason.emplace_back(reject_reason_name(static_cast<RejectReason>(i)), rejected_[i]);
  }
  out.labelled_counter("p2b_analyzer_records_rejected_total",
                       "Reports in applied batches that were not applied, by reason (quarantined "
                       "or refused).",
                       "reason", by_reason);
  std::vector<std::pair<std::string, uint64_t>> quarantined;
  quarantined.reserve(kRejectReasons);
  for (int i = 0; i < kRejectReasons; ++i) {
    const auto r = static_cast<RejectReason>(i);
    if (is_quarantined(r)) quarantined.emplace_back(reject_reason_name(r), quarantined_[i]);
  }
  out.labelled_counter("p2b_analyzer_records_quarantined_total",
                       "Reports kept in quarantine, not applied, by reason.", "reason",
                       quarantined);
  out.gauge("p2b_analyzer_quarantine_records",
            "Reports in quarantine now: retried at the next start.", quarantine_size_);
  const char* outcomes[kReleaseOutcomes] = {"applied", "replayed", "below_threshold"};
  std::vector<std::pair<std::string, uint64_t>> released;
  released.reserve(kReleaseOutcomes);
  for (int i = 0; i < kReleaseOutcomes; ++i) released.emplace_back(outcomes[i], released_[i]);
  out.labelled_counter("p2b_analyzer_records_released_total",
                       "Quarantined reports taken out at start, by outcome.", "outcome", released);
  out.counter("p2b_analyzer_raw_requests_applied_total", "Raw-baseline requests applied.",
              raw_requests_applied_);
  out.counter("p2b_analyzer_raw_records_applied_total", "Raw-baseline records applied.",
              raw_records_applied_);
  out.gauge("p2b_analyzer_model_version", "Version of the latest signed model (0: none yet).",
            model_version_);
  out.gauge("p2b_analyzer_raw_model_version",
            "Version of the latest raw-baseline model (0: none yet).", raw_model_version_);
  http_.render(out, "p2b_analyzer");
  if (store_health_ != nullptr) store_health_->render(out, "p2b_analyzer");
  if (central_epsilon_ <= 0.0) return out.text();
  out.gauge("p2b_analyzer_central_dp_releases_left",
            "Private models that can still be released within the central-DP budget.",
            central_releases_left_);
  out.counter("p2b_analyzer_central_dp_refused_total",
              "Batches refused because the central-DP horizon is exhausted.", central_dp_refused_);
  return out.text() +
         real_gauge("p2b_analyzer_central_dp_epsilon",
                    "Central-DP epsilon of the private models (whole horizon).", central_epsilon_) +
         real_gauge("p2b_analyzer_central_dp_delta", "Central-DP delta of the private models.",
                    central_delta_);
}

}  // namespace p2b::analyzer
