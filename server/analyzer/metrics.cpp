#include "metrics.hpp"

namespace p2b::analyzer {

const char* reject_reason_name(RejectReason r) {
  switch (r) {
    case RejectReason::wrong_length:
      return "wrong_length";
    case RejectReason::unknown_key:
      return "unknown_key";
    case RejectReason::decrypt_failed:
      return "decrypt_failed";
    case RejectReason::malformed:
      return "malformed";
    case RejectReason::code_out_of_range:
      return "code_out_of_range";
    case RejectReason::action_out_of_range:
      return "action_out_of_range";
  }
  return "unknown";
}

void Metrics::batch_applied(uint64_t records, const RejectCounts& rejected) {
  ++batches_applied_;
  records_applied_ += records;
  for (int i = 0; i < kRejectReasons; ++i) rejected_[i] += rejected[i];
}

void Metrics::raw_applied(uint64_t records) {
  ++raw_requests_applied_;
  raw_records_applied_ += records;
}

namespace {

void family(std::string* out, const char* name, const char* type, const char* help) {
  *out += std::string("# HELP ") + name + ' ' + help + "\n# TYPE " + name + ' ' + type + '\n';
}

void sample(std::string* out, const std::string& name, uint64_t v) {
  *out += name + ' ' + std::to_string(v) + '\n';
}

}  // namespace

std::string Metrics::prometheus_text() const {
  std::string out;
  family(&out, "p2b_analyzer_batches_applied_total", "counter", "Batches applied.");
  sample(&out, "p2b_analyzer_batches_applied_total", batches_applied_);
  family(&out, "p2b_analyzer_batches_duplicate_total", "counter",
         "Batches acknowledged again without applying: their id was already applied.");
  sample(&out, "p2b_analyzer_batches_duplicate_total", batches_duplicate_);
  family(&out, "p2b_analyzer_records_applied_total", "counter",
         "Reports that updated the statistics.");
  sample(&out, "p2b_analyzer_records_applied_total", records_applied_);
  family(&out, "p2b_analyzer_records_rejected_total", "counter",
         "Reports in applied batches that were skipped, by reason.");
  for (int i = 0; i < kRejectReasons; ++i) {
    sample(&out,
           std::string("p2b_analyzer_records_rejected_total{reason=\"") +
               reject_reason_name(static_cast<RejectReason>(i)) + "\"}",
           rejected_[i]);
  }
  family(&out, "p2b_analyzer_raw_requests_applied_total", "counter",
         "Raw-baseline requests applied.");
  sample(&out, "p2b_analyzer_raw_requests_applied_total", raw_requests_applied_);
  family(&out, "p2b_analyzer_raw_records_applied_total", "counter",
         "Raw-baseline records applied.");
  sample(&out, "p2b_analyzer_raw_records_applied_total", raw_records_applied_);
  family(&out, "p2b_analyzer_model_version", "gauge",
         "Version of the latest signed model (0: none yet).");
  sample(&out, "p2b_analyzer_model_version", model_version_);
  family(&out, "p2b_analyzer_raw_model_version", "gauge",
         "Version of the latest raw-baseline model (0: none yet).");
  sample(&out, "p2b_analyzer_raw_model_version", raw_model_version_);
  return out;
}

}  // namespace p2b::analyzer
