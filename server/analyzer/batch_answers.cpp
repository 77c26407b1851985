#include "batch_answers.hpp"

#include <sodium.h>

#include <string>

namespace p2b::analyzer {

bool verify_or_refuse(const uint8_t* data, std::size_t len,
                      const std::vector<server::VerifyKey>& shuffler_keys,
                      server::VerifiedBatch* verified, BatchOutcome* out, Metrics& metrics,
                      common::Logger& log) {
  switch (server::verify_batch(data, len, shuffler_keys.data(), shuffler_keys.size(), verified,
                               &out->error)) {
    case server::BatchCheck::ok:
      return true;
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
