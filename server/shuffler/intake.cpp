#include "shuffler/intake.hpp"

#include <sodium.h>

#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/http_errors.hpp"
#include "common/json_log.hpp"

namespace p2b::shuffler {

namespace {

int http_status(Rejection r) {
  switch (r) {
    case Rejection::wrong_length:
      return 400;
    case Rejection::too_large:
      return 413;
    case Rejection::unknown_key:
    case Rejection::key_retired:
      // Misdirected: the envelope was sealed for another shuffler or a
      // retired key, so sending it here again will never work.
      return 421;
    case Rejection::decrypt_failed:
    case Rejection::malformed:
      return 422;
    case Rejection::insufficient_storage:
      return 507;
  }
  return 422;
}

const char* detail(Rejection r) {
  switch (r) {
    case Rejection::wrong_length:
      return "the body is empty or not a whole number of envelopes";
    case Rejection::too_large:
      return "the body is larger than --max-body";
    case Rejection::unknown_key:
      return "an envelope names a key this shuffler does not hold";
    case Rejection::decrypt_failed:
      return "an envelope does not decrypt with the key it names";
    case Rejection::malformed:
      return "an envelope decrypts to an invalid report";
    case Rejection::insufficient_storage:
      return "the shuffler's disk is nearly full; nothing was stored, retry later";
    case Rejection::key_retired:
      return "an envelope is sealed to a retired key; nothing was stored";
  }
  return "an envelope decrypts to an invalid report";
}

}  // namespace

ReportIntake::ReportIntake(common::BoxKeys keys, Spool& spool, Metrics& metrics,
                           std::size_t max_body, std::function<void(std::size_t)> on_stored,
                           DiskGuard* disk)
    : keys_(std::move(keys)),
      metrics_(metrics),
      commits_(spool, GroupCommit::kDefaultMaxRecords, &metrics.insert_commits),
      max_body_(max_body),
      on_stored_(std::move(on_stored)),
      disk_(disk),
      store_health_(spool.health()),
      spool_(spool) {
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    EpochId epoch{};
    std::copy(keys_[i].fp, keys_[i].fp + epoch.size(), epoch.begin());
    spool_.open_epoch(epoch);
  }
}

IntakeReply ReportIntake::refuse(Rejection why) {
  metrics_.reject(why);
  // The guard logs when the disk gets low and when it recovers; a line per
  // refused request would only fill the disk faster.
  if (why == Rejection::insufficient_storage) {
    return {http_status(why), common::error_body(rejection_label(why), detail(why))};
  }
  common::service_log().warn("reports_rejected", {{"reason", rejection_label(why)}});
  return {http_status(why), common::error_body(rejection_label(why), detail(why))};
}

IntakeReply ReportIntake::refuse_too_large() {
  return refuse(Rejection::too_large);
}

IntakeReply ReportIntake::handle(const std::string& body) {
  if (body.size() > max_body_) return refuse(Rejection::too_large);
  if (body.empty() || body.size() % kEnvelopeBytes != 0) return refuse(Rejection::wrong_length);
  if (disk_ != nullptr && disk_->low()) return refuse(Rejection::insufficient_storage);

  const auto* bytes = reinterpret_cast<const uint8_t*>(body.data());
  const std::size_t n = body.size() / kEnvelopeBytes;
  std::vector<SpoolRecord> records(n);
  for (std::size_t i = 0; i < n; ++i) {
    const uint8_t* env = bytes + i * kEnvelopeBytes;
    server::OuterOpened opened{};
    const server::OpenStatus st =
        server::open_outer(env, kEnvelopeBytes, keys_.data(), keys_.size(), &opened);
    if (st != server::OpenStatus::ok) return refuse(rejection_for(st));
    SpoolRecord& r = records[i];
    crypto_generichash(r.digest.data(), r.digest.size(), env, kEnvelopeBytes, nullptr, 0);
    r.crowd_id = opened.crowd_id;
    r.partition = spool_.partition_of(opened.crowd_id);
    // The key it opened with: the cleartext fingerprint it starts with.
    std::copy(env, env + kFingerprintBytes, r.epoch.begin());
    std::copy(opened.inner, opened.inner + kInnerBytes, r.inner.begin());
    r.inner_digest = server::inner_digest(r.inner);
  }

  // A failed store was logged once when it failed (store_health.hpp); a 202
  // now would promise a delivery it cannot make.
  if (store_health_ != nullptr && store_health_->failed()) {
    return {503, common::error_body("store_unavailable", "the spool failed; nothing was stored")};
  }
  InsertCounts counts;
  try {
    counts = commits_.insert(records);
  } catch (const SpoolError& e) {
    common::service_log().error("spool_insert_failed", {{"error", e.what()}});
    return {503, common::error_body("spool_unavailable",
                                    "the spool could not store the reports; nothing was stored")};
  }
  // Retired by an operator, here or on another node, since this node
  // loaded its keys: refused whole, like an envelope for an unknown key.
  if (counts.retired > 0) return refuse(Rejection::key_retired);
  metrics_.received.fetch_add(counts.accepted);
  metrics_.duplicates.fetch_add(counts.duplicates);
  metrics_.inner_duplicates.fetch_add(counts.inner_duplicates);
  if (on_stored_ && counts.accepted > 0) on_stored_(counts.accepted);
  nlohmann::ordered_json reply;
  reply["accepted"] = counts.accepted;
  reply["duplicates"] = counts.duplicates + counts.inner_duplicates;
  return {202, reply.dump()};
}

}  // namespace p2b::shuffler
