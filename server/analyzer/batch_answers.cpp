#include "batch_answers.hpp"

#include <sodium.h>

#include <string>

namespace p2b::analyzer {

namespace {

// After the signature: the thresholds are the shuffler's word, and only a
// pinned shuffler's word counts.
bool same_thresholds_or_refuse(const AnalyzerSettings& settings,
                               const server::VerifiedBatch& verified, BatchOutcome* out,
                               Metrics& metrics, common::Logger& log) {
  const server::BatchThresholds want = expected_thresholds(settings);
  const server::BatchThresholds& have = verified.batch.thresholds;
  if (server::same_thresholds(want, have)) return true;
  out->result = BatchResult::threshold_mismatch;
  out->error = "the batch was thresholded with " + server::thresholds_str(have) +
               ", this analyzer applies " + server::thresholds_str(want) +
               ": the shuffler's --threshold and --noisy-threshold must equal the analyzer's";
  metrics.batch_refused(BatchRefusal::threshold_mismatch);
  log.error("batch_refused", {{"reason", "threshold_mismatch"},
                              {"batch", server::batch_id_hex(verified.batch.id)},
                              {"batch_thresholds", server::thresholds_str(have)},
                              {"analyzer_thresholds", server::thresholds_str(want)}});
  return false;
}

}  // namespace

server::BatchThresholds expected_thresholds(const AnalyzerSettings& settings) {
  // The options bound l to 2^30, so it fits the wire's u32.
  return {static_cast<uint32_t>(settings.threshold), settings.threshold_noise};
}

bool verify_or_refuse(const uint8_t* data, std::size_t len, const AnalyzerSettings& settings,
                      server::VerifiedBatch* verified, BatchOutcome* out, Metrics& metrics,
                      common::Logger& log) {
  const std::vector<server::VerifyKey>& keys = settings.shuffler_keys;
  switch (server::verify_batch(data, len, keys.data(), keys.size(), verified, &out->error)) {
    case server::BatchCheck::ok:
      return same_thresholds_or_refuse(settings, *verified, out, metrics, log);
    case server::BatchCheck::malformed:
      out->result = BatchResult::malformed;
      metrics.batch_refused(BatchRefusal::malformed);
      break;
    case server::BatchCheck::unknown_signer:
      out->result = BatchResult::unknown_signer;
      metrics.batch_refused(BatchRefusal::unknown_signer);
      break;
    case server::BatchCheck::bad_signature:
      out->result = BatchResult::bad_signature;
      metrics.batch_refused(BatchRefusal::bad_signature);
      break;
  }
  log.warn("batch_refused", {{"reason", out->error}});
  return false;
}

BatchOutcome answer_known_batch(const server::VerifiedBatch& verified, const AppliedBatch& known,
                                const AckSigner& sign, Metrics& metrics, common::Logger& log) {
  const std::string id = server::batch_id_hex(verified.batch.id);
  BatchOutcome out;
  if (sodium_memcmp(known.digest.data(), verified.digest.data(), known.digest.size()) != 0) {
    out.result = BatchResult::conflict;
    out.error = "batch id " + id + " was applied with other contents";
    metrics.batch_refused(BatchRefusal::conflict);
    log.warn("batch_conflict", {{"batch", id}});
    return out;
  }
  out.result = BatchResult::duplicate;
  out.version = known.version;
  server::BatchAck ack = known.counts;
  ack.id = verified.batch.id;
  ack.digest = verified.digest;
  ack.model_version = known.version;
  out.ack = sign(ack);
  metrics.batch_duplicate();
  log.info("batch_duplicate", {{"batch", id}});
  return out;
}

void add_rejection_fields(const RejectCounts& by_reason, std::vector<common::LogField>* fields) {
  for (int i = 0; i < kRejectReasons; ++i) {
    if (by_reason[i] > 0) {
      fields->push_back(
          {std::string("rejected_") + reject_reason_name(static_cast<RejectReason>(i)),
           by_reason[i]});
    }
  }
}

}  // namespace p2b::analyzer
