#include "shuffler/intake.hpp"

#include <sodium.h>

#include <algorithm>
#include <utility>

#include "shuffler/json_log.hpp"

namespace p2b::shuffler {

namespace {

int http_status(Rejection r) {
  switch (r) {
    case Rejection::wrong_length:
      return 400;
    case Rejection::too_large:
      return 413;
    case Rejection::unknown_key:
      // Misdirected: the envelope was sealed for another shuffler (or a
      // retired key), so sending it here again will never work.
      return 421;
    case Rejection::decrypt_failed:
    case Rejection::malformed:
      return 422;
  }
  return 422;
}

}  // namespace

ReportIntake::ReportIntake(std::vector<server::BoxKey> keys, Spool& spool, Metrics& metrics,
                           std::size_t max_body, std::function<void(std::size_t)> on_stored)
    : keys_(std::move(keys)),
      spool_(spool),
      metrics_(metrics),
      max_body_(max_body),
      on_stored_(std::move(on_stored)) {}

ReportIntake::~ReportIntake() {
  if (!keys_.empty()) sodium_memzero(keys_.data(), keys_.size() * sizeof(server::BoxKey));
}

IntakeReply ReportIntake::refuse(Rejection why) {
  metrics_.reject(why);
  log_event("warn", "reports_rejected", {{"reason", rejection_label(why)}});
  return {http_status(why), std::string("{\"error\":\"") + rejection_label(why) + "\"}"};
}

IntakeReply ReportIntake::refuse_too_large() {
  return refuse(Rejection::too_large);
}

IntakeReply ReportIntake::handle(const std::string& body) {
  if (body.size() > max_body_) return refuse(Rejection::too_large);
  if (body.empty() || body.size() % kEnvelopeBytes != 0) return refuse(Rejection::wrong_length);

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
    std::copy(opened.inner, opened.inner + kInnerBytes, r.inner.begin());
  }

  InsertCounts counts;
  try {
    counts = spool_.insert(records);
  } catch (const SpoolError& e) {
    log_event("error", "spool_insert_failed", {{"error", e.what()}});
    return {503, "{\"error\":\"spool_unavailable\"}"};
  }
  metrics_.received.fetch_add(counts.accepted);
  metrics_.duplicates.fetch_add(counts.duplicates);
  if (on_stored_ && counts.accepted > 0) on_stored_(counts.accepted);
  return {202, "{\"accepted\":" + std::to_string(counts.accepted) +
                   ",\"duplicates\":" + std::to_string(counts.duplicates) + "}"};
}

}  // namespace p2b::shuffler
