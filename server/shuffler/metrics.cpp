#include "shuffler/metrics.hpp"

#include <chrono>
#include <utility>
#include <vector>

#include "common/prometheus_text.hpp"
#include "shuffler/spool.hpp"

namespace p2b::shuffler {

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
    case Rejection::insufficient_storage:
      return "insufficient_storage";
    case Rejection::key_retired:
      return "key_retired";
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

std::string Metrics::render(std::optional<std::size_t> spool_depth,
                            const common::StoreHealth* store) const {
  common::PrometheusText out;
  out.counter("p2b_shuffler_received_total", "New envelopes accepted and spooled.",
              received.load());
  std::vector<std::pair<std::string, uint64_t>> by_reason;
  for (Rejection r :
       {Rejection::wrong_length, Rejection::too_large, Rejection::unknown_key,
        Rejection::decrypt_failed, Rejection::malformed, Rejection::insufficient_storage}) {
    by_reason.emplace_back(rejection_label(r), rejected[static_cast<int>(r)].load());
  }
  out.labelled_counter("p2b_shuffler_rejected_total", "Requests to /v1/reports refused, by reason.",
                       "reason", by_reason);
  out.labelled_counter("p2b_shuffler_duplicates_total",
                       "Replayed reports dropped, by the layer recognised: the same envelope "
                       "(outer) or a seen inner ciphertext in a fresh envelope (inner).",
                       "layer", {{"outer", duplicates.load()}, {"inner", inner_duplicates.load()}});
  out.counter("p2b_shuffler_thresholded_total",
              "Records deleted because their crowd was below the threshold.", thresholded.load());
  out.counter("p2b_shuffler_forwarded_total", "Records acknowledged by the analyzer.",
              forwarded.load());
  out.counter("p2b_shuffler_batches_total", "Batches acknowledged by the analyzer.",
              batches.load());
  out.counter("p2b_shuffler_forward_failures_total",
              "Batch deliveries that failed and will be retried.", forward_failures.load());
  out.counter("p2b_shuffler_bad_acks_total",
              "Deliveries answered 200 without a valid acknowledgement of the batch sent.",
              bad_acks.load());
  out.counter("p2b_shuffler_insert_commits_total",
              "Spool transactions that stored accepted requests; concurrent requests share "
              "one (group commit).",
              insert_commits.load());
  if (spool_depth) {
    out.gauge("p2b_shuffler_spool_depth", "Records in the spool, batched or not.", *spool_depth);
  }
  out.counter("p2b_shuffler_batch_close_failures_total",
              "Tries to close a batch that failed (storage errors); retried with backoff.",
              close_failures.load());
  out.gauge("p2b_shuffler_batch_close_failing", "1 while closing batches keeps failing.",
            close_failing.load() ? 1 : 0);
  out.gauge("p2b_shuffler_delivery_failing",
            "1 while the oldest unacknowledged batch cannot be delivered.",
            delivery_failing.load() ? 1 : 0);
  out.counter("p2b_shuffler_threshold_mismatches_total",
              "Deliveries the analyzer refused because its --threshold or --noisy-threshold "
              "differs from this shuffler's (409 threshold_mismatch).",
              threshold_mismatches.load());
  out.gauge("p2b_shuffler_delivery_misconfigured",
            "1 while delivery fails on a configuration error only an operator can fix.",
            delivery_misconfigured.load() ? 1 : 0);
  out.counter("p2b_shuffler_previous_key_acks_total",
              "Batches acknowledged once re-signed by an earlier signing key (a key rotation "
              "while they awaited their ack).",
              previous_key_acks.load());
  out.gauge("p2b_shuffler_delivery_consecutive_failures",
            "Failed deliveries since the last acknowledged one.",
            delivery_consecutive_failures.load());
  out.gauge("p2b_shuffler_unacknowledged_batches",
            "Closed batches in the spool that the analyzer has not acknowledged yet.",
            unacknowledged_batches.load());
  const int64_t since = oldest_unacknowledged_since_ms.load();
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  out.gauge(
      "p2b_shuffler_oldest_unacknowledged_age_seconds",
      "Whole seconds since this process first tried to deliver the oldest unacknowledged batch "
      "(0: none waiting).",
      since < 0 ? 0 : static_cast<uint64_t>((now - since) / 1000));
  out.gauge("p2b_shuffler_disk_free_bytes",
            "Bytes free to the shuffler on the spool's filesystem, as last checked.",
            disk_free_bytes.load());
  out.gauge("p2b_shuffler_disk_low",
            "1 while free space is below --min-free-disk and new reports get 507.",
            disk_low.load() ? 1 : 0);
  out.labelled_counter("p2b_shuffler_set_aside_total",
                       "Records set aside in the shuffler's quarantine instead of sent, by reason.",
                       "reason", {{kDamagedInSpool, damaged_in_spool.load()}});
  out.gauge("p2b_shuffler_quarantine_records",
            "Records in the shuffler's quarantine (p2b-shuffler quarantine list).",
            quarantined.load());
  http.render(out, "p2b_shuffler");
  if (store != nullptr) store->render(out, "p2b_shuffler");
  return out.text();
}

}  // namespace p2b::shuffler
