#include "shuffler/metrics.hpp"

#include <utility>
#include <vector>

#include "common/prometheus_text.hpp"

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
  for (Rejection r : {Rejection::wrong_length, Rejection::too_large, Rejection::unknown_key,
                      Rejection::decrypt_failed, Rejection::malformed}) {
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
  http.render(out, "p2b_shuffler");
  if (store != nullptr) store->render(out, "p2b_shuffler");
  return out.text();
}

}  // namespace p2b::shuffler
