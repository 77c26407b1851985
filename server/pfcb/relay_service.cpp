#include "pfcb/relay_service.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

#include <sodium.h>

#include "common/prometheus_text.hpp"
#include "pfcb/read_auth.hpp"

namespace p2b::pfcb {

namespace {

Reply error_reply(int status, const std::string& code) {
  Reply r;
  r.status = status;
  r.code = code;
  r.body = nlohmann::json{{"error", code}}.dump();
  return r;
}

void put_u64le(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

}  // namespace

RelayService::RelayService(const RelayConfig& cfg, const std::string& store_path,
                           common::Logger* log)
    : cfg_(cfg),
      members_(cfg.members),
      log_(log),
      store_(store_path, cfg.producers, cfg.consortium_fp) {}

Reply RelayService::refuse(int status, const std::string& code, const std::string& detail) {
  ++stats_.postings_refused;
  ++stats_.refused_by_reason[code];
  Reply r = error_reply(status, code);
  r.detail = detail;
  return r;
}

Reply RelayService::forbid(const std::string& reason) {
  ++stats_.fetches_forbidden;
  ++stats_.forbidden_by_reason[reason];
  Reply r = error_reply(403, kForbiddenCode);
  r.detail = reason;
  return r;
}

Reply RelayService::post(const std::string& body, uint64_t now_unix) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(body.data());
  PostingHeader h;
  const PostingStatus st = verify_posting_signature(bytes, body.size(), cfg_.producers,
                                                    cfg_.consortium_fp, members_, &h, nullptr);
  if (st == PostingStatus::unknown_sender && members_.size() > 0 && body.size() > kSignatureBytes) {
    // The check stops before the signature for an unknown sender; verify
    // anyway (against a member's key: it fails) so that the answer takes
    // as long as a member's bad signature and its timing names no member.
    const std::size_t signed_len = body.size() - kSignatureBytes;
    const int equalised =
        crypto_sign_verify_detached(bytes + signed_len, bytes, signed_len, members_.key(0).data());
    static_cast<void>(equalised);
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (st == PostingStatus::unknown_sender || st == PostingStatus::bad_signature) {
    return refuse(400, kUnauthenticatedPosting, posting_status_name(st));
  }
  if (st != PostingStatus::ok) return refuse(400, posting_status_name(st), posting_status_name(st));
  uint64_t seq = 0;
  RelayStore::Insert done = RelayStore::Insert::replay;
  try {
    done = store_.insert(h.sender_fp, h.release, now_unix,
                         std::vector<uint8_t>(bytes, bytes + body.size()), &seq);
  } catch (const StoreError& e) {
    ++stats_.store_errors;
    if (log_ != nullptr) log_->error("store_failed", {{"error", e.what()}});
    return error_reply(503, "store_unavailable");
  }
  if (done == RelayStore::Insert::replay) {
    ++stats_.replays_refused;
    return refuse(409, "replay", "replay");
  }
  ++stats_.postings_accepted;
  Reply r;
  r.body = nlohmann::json{{"seq", seq}, {"release", h.release}}.dump();
  return r;
}

Reply RelayService::list(const std::multimap<std::string, std::string>& params,
                         const std::multimap<std::string, std::string>& auth, uint64_t now_us) {
  ListQuery q;
  std::string why;
  ReadAuth a;
  const ReadAuthParse parsed = parse_read_auth(auth, &a);
  // Verified before the lock: an Ed25519 check holds up nobody's commit.
  uint8_t reader_fp[kFpBytes] = {};
  const bool query_ok = parse_list_query(params, cfg_.max_batch, &q, &why);
  ReadAuthStatus st = parsed == ReadAuthParse::missing ? ReadAuthStatus::missing_auth
                                                       : ReadAuthStatus::malformed_auth;
  if (query_ok && parsed == ReadAuthParse::ok) {
    st = verify_read(a, q, cfg_.consortium_fp, members_, now_us, reader_fp);
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (!query_ok) {
    // The query's shape is public (docs/pfcb-relay.md): a 400 tells nothing
    // about members, and without a parsed query there is nothing to verify.
    ++stats_.fetches_refused;
    return error_reply(400, "bad_query");
  }
  if (st != ReadAuthStatus::ok) return forbid(read_auth_status_name(st));
  std::vector<StoredPosting> got;
  std::vector<QuarantinedRow> damaged;
  uint64_t cursor = 0;
  try {
    const RelayStore::Read done =
        store_.list(ReadStamp{reader_fp, a.time_us}, q.after, q.exclude ? q.exclude_fp : nullptr,
                    q.limit, now_us / 1000000, &got, &cursor, &damaged);
    if (done == RelayStore::Read::replay) return forbid("replay");
  } catch (const StoreError& e) {
    ++stats_.store_errors;
    if (log_ != nullptr) log_->error("store_failed", {{"error", e.what()}});
    return error_reply(503, "store_unavailable");
  }
  for (const QuarantinedRow& row : damaged) {
    ++stats_.postings_quarantined;
    ++stats_.quarantined_by_reason[row.reason];
    if (log_ != nullptr) {
      log_->error("posting_quarantined", {{"seq", row.seq}, {"reason", row.reason}});
    }
  }
  ++stats_.fetches;
  stats_.postings_served += got.size();
  Reply r;
  r.content_type = "application/octet-stream";
  r.cursor = cursor;
  r.body.reserve(got.size() * (kRecordSeqBytes + posting_wire_size(cfg_.producers)));
  for (const StoredPosting& p : got) {
    put_u64le(&r.body, p.seq);
    r.body.append(p.bytes.begin(), p.bytes.end());
  }
  return r;
}

uint64_t RelayService::sweep(uint64_t now_unix) {
  const uint64_t cutoff = now_unix > cfg_.retention_seconds ? now_unix - cfg_.retention_seconds : 0;
  std::lock_guard<std::mutex> lock(mu_);
  try {
    const uint64_t n = store_.delete_before(cutoff);
    stats_.retention_deleted += n;
    if (n > 0 && log_ != nullptr) log_->info("retention_deleted", {{"postings", n}});
    return n;
  } catch (const StoreError& e) {
    ++stats_.store_errors;
    if (log_ != nullptr) log_->error("store_failed", {{"error", e.what()}});
    return 0;
  }
}

nlohmann::json RelayService::stats_json() const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto object = [](const std::map<std::string, uint64_t>& counts) {
    nlohmann::json o = nlohmann::json::object();
    for (const auto& [reason, n] : counts) o[reason] = n;
    return o;
  };
  uint64_t stored = 0;
  uint64_t quarantine = 0;
  try {
    stored = store_.count();
    quarantine = store_.quarantine().rows;
  } catch (const StoreError&) {
    stored = 0;  // store_errors and /readyz say why
  }
  // Not the member count: the consortium's size is the members' to know.
  return {{"producers", cfg_.producers},
          {"stored", stored},
          {"quarantine", quarantine},
          {"postings_accepted", stats_.postings_accepted},
          {"postings_refused", stats_.postings_refused},
          {"replays_refused", stats_.replays_refused},
          {"fetches", stats_.fetches},
          {"fetches_refused", stats_.fetches_refused},
          {"fetches_forbidden", stats_.fetches_forbidden},
          {"postings_served", stats_.postings_served},
          {"postings_quarantined", stats_.postings_quarantined},
          {"retention_deleted", stats_.retention_deleted},
          {"store_errors", stats_.store_errors},
          {"refused_by_reason", object(stats_.refused_by_reason)},
          {"forbidden_by_reason", object(stats_.forbidden_by_reason)},
          {"quarantined_by_reason", object(stats_.quarantined_by_reason)}};
}

std::string RelayService::metrics_text() const {
  // Levels that go down as well as up; every other number only counts up.
  static const char* const kGauges[] = {"producers", "stored", "quarantine"};
  const nlohmann::json stats = stats_json();
  common::PrometheusText out;
  for (const auto& [key, value] : stats.items()) {
    const std::string name = "p2b_relay_" + key;
    const std::string help = "p2b-relay " + key + " (docs/pfcb-relay.md)";
    if (value.is_object()) {
      std::vector<std::pair<std::string, uint64_t>> samples;
      for (const auto& [k, v] : value.items()) samples.emplace_back(k, v.get<uint64_t>());
      const std::size_t by = key.rfind("_by_");
      out.labelled_counter(name + "_total", help, key.substr(by + 4), samples);
    } else {
      const std::string& level = key;  // a structured binding cannot be captured in C++17
      const bool gauge = std::any_of(std::begin(kGauges), std::end(kGauges),
                                     [&level](const char* g) { return level == g; });
      if (gauge) {
        out.gauge(name, help, value.get<uint64_t>());
      } else {
        out.counter(name + "_total", help, value.get<uint64_t>());
      }
    }
  }
  return out.text();
}

common::CheckResult RelayService::store_check() const {
  return store_.health().check();
}

common::CheckResult RelayService::quarantine_check() const {
  QuarantineSummary q;
  {
    std::lock_guard<std::mutex> lock(mu_);
    try {
      q = store_.quarantine();
    } catch (const StoreError&) {
      return common::check_ok("unknown: the storage check says why");
    }
  }
  if (q.rows == 0) return common::check_ok("empty");
  std::string detail = std::to_string(q.rows) + (q.rows == 1 ? " posting" : " postings") + " (";
  for (std::size_t i = 0; i < q.by_reason.size(); ++i) {
    if (i > 0) detail += ", ";
    detail += q.by_reason[i].first + " " + std::to_string(q.by_reason[i].second);
  }
  detail += "), seq";
  for (const uint64_t seq : q.first_seqs) detail += " " + std::to_string(seq);
  if (q.rows > q.first_seqs.size()) detail += " ...";
  return common::check_failed(detail + "; kept until the retention deletes them");
}

}  // namespace p2b::pfcb
