#include "shuffler/metrics.hpp"

namespace p2b::shuffler {

namespace {

void counter(std::string* out, const char* name, const char* help, uint64_t value) {
  *out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " counter\n" + name +
          " " + std::to_string(value) + "\n";
}

}  // namespace

const char* rejection_label(Rejection r) {
  switch (r) {
    case Rejection::wrong_length:
      return "wrong_length";
    case Rejection::too_large:
      return "too_large";
    case Rejection::unknown_key:
      return "unknown_key";
    case Rejection::decrypt_failed:
      return "decrypt_failed";
    case Rejection::malformed:
      return "malformed";
  }
  return "malformed";
}

Rejection rejection_for(server::OpenStatus s) {
  switch (s) {
    case server::OpenStatus::wrong_length:
      return Rejection::wrong_length;
    case server::OpenStatus::unknown_key:
      return Rejection::unknown_key;
    case server::OpenStatus::decrypt_failed:
      return Rejection::decrypt_failed;
    case server::OpenStatus::ok:
    case server::OpenStatus::malformed:
      break;
  }
  return Rejection::malformed;
}

std::string Metrics::render(std::size_t spool_depth) const {
  std::string out;
  counter(&out, "p2b_shuffler_received_total", "New envelopes accepted and spooled.",
          received.load());
  out +=
      "# HELP p2b_shuffler_rejected_total Requests to /v1/reports refused, by reason.\n"
      "# TYPE p2b_shuffler_rejected_total counter\n";
  for (Rejection r : {Rejection::wrong_length, Rejection::too_large, Rejection::unknown_key,
                      Rejection::decrypt_failed, Rejection::malformed}) {
    out += std::string("p2b_shuffler_rejected_total{reason=\"") + rejection_label(r) + "\"} " +
           std::to_string(rejected[static_cast<int>(r)].load()) + "\n";
  }
  counter(&out, "p2b_shuffler_duplicates_total", "Replayed envelopes dropped.", duplicates.load());
  counter(&out, "p2b_shuffler_thresholded_total",
          "Records deleted because their crowd was below the threshold.", thresholded.load());
  counter(&out, "p2b_shuffler_forwarded_total", "Records acknowledged by the analyzer.",
          forwarded.load());
  counter(&out, "p2b_shuffler_batches_total", "Batches acknowledged by the analyzer.",
          batches.load());
  counter(&out, "p2b_shuffler_forward_failures_total",
          "Batch deliveries that failed and will be retried.", forward_failures.load());
  out +=
      "# HELP p2b_shuffler_spool_depth Records in the spool, batched or not.\n"
      "# TYPE p2b_shuffler_spool_depth gauge\n"
      "p2b_shuffler_spool_depth " +
      std::to_string(spool_depth) + "\n";
  return out;
}

}  // namespace p2b::shuffler
