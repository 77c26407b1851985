#include "pfcb/relay_service.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

#include "common/prometheus_text.hpp"

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

Reply RelayService::refuse(int status, const std::string& code) {
  ++stats_.postings_refused;
  ++stats_.refused_by_reason[code];
  return error_reply(status, code);
}

Reply RelayService::post(const std::string& body, uint64_t now_unix) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(body.data());
  PostingHeader h;
  const PostingStatus st = verify_posting_signature(bytes, body.size(), cfg_.producers,
                                                    cfg_.consortium_fp, members_, &h, nullptr);
  std::lock_guard<std::mutex> lock(mu_);
  if (st != PostingStatus::ok) return refuse(400, posting_status_name(st));
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
    return refuse(409, "replay");
  }
  ++stats_.postings_accepted;
  ++stats_.accepted_by_sender[h.sender_index];
  return Reply{200, nlohmann::json{{"seq", seq}, {"release", h.release}}.dump(), "application/json",
               "", 0};
}

Reply RelayService::list(const std::multimap<std::string, std::string>& params) {
  ListQuery q;
  std::string why;
  std::lock_guard<std::mutex> lock(mu_);
  if (!parse_list_query(params, cfg_.max_batch, &q, &why)) {
    ++stats_.fetches_refused;
    return error_reply(400, "bad_query");
  }
  std::vector<StoredPosting> got;
  uint64_t cursor = 0;
  try {
    got = store_.list(q.after, q.exclude ? q.exclude_fp : nullptr, q.limit, &cursor);
  } catch (const StoreError& e) {
    ++stats_.store_errors;
    if (log_ != nullptr) log_->error("store_failed", {{"error", e.what()}});
    return error_reply(503, "store_unavailable");
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
  nlohmann::json by_reason = nlohmann::json::object();
  for (const auto& [reason, n] : stats_.refused_by_reason) by_reason[reason] = n;
  nlohmann::json by_sender = nlohmann::json::object();
  for (const auto& [index, n] : stats_.accepted_by_sender) by_sender[std::to_string(index)] = n;
  uint64_t stored = 0;
  try {
    stored = store_.count();
  } catch (const StoreError&) {
    stored = 0;  // store_errors and /readyz say why
  }
  return {{"producers", cfg_.producers},
          {"members", cfg_.members.size()},
          {"stored", stored},
          {"postings_accepted", stats_.postings_accepted},
          {"postings_refused", stats_.postings_refused},
          {"replays_refused", stats_.replays_refused},
          {"fetches", stats_.fetches},
          {"fetches_refused", stats_.fetches_refused},
          {"postings_served", stats_.postings_served},
          {"retention_deleted", stats_.retention_deleted},
          {"store_errors", stats_.store_errors},
          {"refused_by_reason", by_reason},
          {"accepted_by_sender", by_sender}};
}

std::string RelayService::metrics_text() const {
  // Levels that go down as well as up; every other number only counts up.
  static const char* const kGauges[] = {"producers", "members", "stored"};
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

}  // namespace p2b::pfcb
