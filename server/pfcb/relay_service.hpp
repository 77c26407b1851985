// p2b-relay (docs/pfcb-relay.md): stores the agents' P2BX postings and hands
// each agent the others' at its own pace. It holds no consortium key: it
// checks a posting's length, form, consortium, member and signature, keeps
// one per (sender, release), and forwards the bytes as they came. Nothing
// waits for a slow or absent agent. Server code: the HTTP layer is in
// relay_main.cpp; nothing here throws past this API.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/json_log.hpp"
#include "common/readiness.hpp"
#include "pfcb/relay_requests.hpp"
#include "pfcb/relay_store.hpp"
#include "pfcb/wire/pfcb_wire.hpp"

namespace p2b::pfcb {

// The header of a GET /v1/pfcb/postings answer that carries the next cursor.
inline constexpr const char* kCursorHeader = "P2B-Cursor";
// Each record of a GET answer: u64le seq | the posting (posting_wire_size(m)).
inline constexpr std::size_t kRecordSeqBytes = 8;

struct RelayConfig {
  uint32_t producers = 0;  // m: the one posting length accepted
  uint8_t consortium_fp[kFpBytes] = {};
  std::vector<VerifyKey> members;  // the members file, in order
  uint32_t max_batch = kMaxBatch;
  uint64_t retention_seconds = uint64_t{24} * 3600;  // postings older than this are deleted
};

struct Reply {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::string code;     // the error code, empty on success
  uint64_t cursor = 0;  // GET postings: the next cursor (kCursorHeader)
};

struct RelayStats {
  uint64_t postings_accepted = 0;
  uint64_t postings_refused = 0;  // every refusal, replays included
  uint64_t replays_refused = 0;
  uint64_t fetches = 0;
  uint64_t fetches_refused = 0;
  uint64_t postings_served = 0;
  uint64_t retention_deleted = 0;
  uint64_t store_errors = 0;
  std::map<std::string, uint64_t> refused_by_reason;
  std::map<uint32_t, uint64_t> accepted_by_sender;  // by sender index
};

class RelayService {
 public:
  // Throws StoreError if the store cannot be opened or is another deployment's.
  RelayService(const RelayConfig& cfg, const std::string& store_path, common::Logger* log);

  // POST /v1/pfcb/postings: 200 {"seq":N,"release":z} once the posting is
  // durably stored; 400 {"error":<posting status>} for a posting that fails
  // a check; 409 {"error":"replay"} when its sender already stored this or a
  // later release; 503 {"error":"store_unavailable"} when the store failed
  // (nothing acknowledged, the agent retries).
  Reply post(const std::string& body, uint64_t now_unix);
  // GET /v1/pfcb/postings?after=&exclude=&limit=: records (u64le seq |
  // posting) in store order, the next cursor in Reply::cursor; 400
  // {"error":"bad_query"} for any other query.
  Reply list(const std::multimap<std::string, std::string>& params);
  // Deletes what is older than the retention; returns how many.
  uint64_t sweep(uint64_t now_unix);

  nlohmann::json stats_json() const;
  std::string metrics_text() const;  // GET /metrics
  common::CheckResult store_check() const;
  const RelayConfig& config() const { return cfg_; }

 private:
  Reply refuse(int status, const std::string& code);

  RelayConfig cfg_;
  Members members_;
  common::Logger* log_;
  mutable std::mutex mu_;  // one transaction at a time on the store's connection
  RelayStore store_;
  RelayStats stats_;
};

}  // namespace p2b::pfcb
