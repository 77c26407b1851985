// p2b-relay (docs/pfcb-relay.md): stores the agents' P2BX postings and hands
// each agent the others' at its own pace. It holds no consortium key: it
// checks a posting's length, form, consortium, member and signature, keeps
// one per (sender, release), and forwards the bytes as they came. Nothing
// waits for a slow or absent agent. It serves postings only to members
// that sign their read (read_auth.hpp), and tells nobody else who the
// members are: not in an answer, not in /v1/pfcb/stats or /metrics (which
// are public and carry aggregates only). Server code: the HTTP layer is in
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
  std::string detail;   // for the log only: the refusal's own reason
  uint64_t cursor = 0;  // GET postings: the next cursor (kCursorHeader)
};

// The public answer to every refused read: one body whatever the reason, so
// that it confirms nothing about the key it was given.
inline constexpr const char* kForbiddenCode = "forbidden";
// The public reason for a posting by no member or with a bad signature: one
// name for both, so that a POST is no membership oracle either.
inline constexpr const char* kUnauthenticatedPosting = "unauthenticated";

// Only aggregates: nothing per sender or per reader, since sender indices
// map to members and /v1/pfcb/stats and /metrics answer anyone.
struct RelayStats {
  uint64_t postings_accepted = 0;
  uint64_t postings_refused = 0;  // every refusal, replays included
  uint64_t replays_refused = 0;
  uint64_t fetches = 0;
  uint64_t fetches_refused = 0;    // 400 bad_query
  uint64_t fetches_forbidden = 0;  // 403, by reason below
  uint64_t postings_served = 0;
  uint64_t postings_quarantined = 0;  // by reason below
  uint64_t retention_deleted = 0;
  uint64_t store_errors = 0;
  std::map<std::string, uint64_t> refused_by_reason;
  std::map<std::string, uint64_t> forbidden_by_reason;  // read_auth_status_name, or replay
  std::map<std::string, uint64_t> quarantined_by_reason;
};

class RelayService {
 public:
  // Throws StoreError if the store cannot be opened or is another deployment's.
  RelayService(const RelayConfig& cfg, const std::string& store_path, common::Logger* log);

  // POST /v1/pfcb/postings: 200 {"seq":N,"release":z} once the posting is
  // durably stored; 400 {"error":<posting status>} for a posting that fails
  // a check (unknown_sender and bad_signature both as "unauthenticated");
  // 409 {"error":"replay"} when its sender already stored this or a later
  // release; 503 {"error":"store_unavailable"} when the store failed
  // (nothing acknowledged, the agent retries).
  Reply post(const std::string& body, uint64_t now_unix);
  // GET /v1/pfcb/postings?after=&exclude=&limit= with the signed-read
  // headers (`auth`, as parse_read_auth takes them): records (u64le seq |
  // posting) in store order, the next cursor in Reply::cursor; 400
  // {"error":"bad_query"} for any other query; 403 {"error":"forbidden"}
  // for a read that is not a member's fresh, signed, first use of its time
  // (Reply::detail says which); 503 store_unavailable.
  Reply list(const std::multimap<std::string, std::string>& params,
             const std::multimap<std::string, std::string>& auth, uint64_t now_us);
  // Deletes what is older than the retention; returns how many.
  uint64_t sweep(uint64_t now_unix);

  nlohmann::json stats_json() const;
  std::string metrics_text() const;  // GET /metrics
  common::CheckResult store_check() const;
  // Fails while the quarantine holds a row, naming how many, why, and the
  // first seqs (never a sender).
  common::CheckResult quarantine_check() const;
  const RelayConfig& config() const { return cfg_; }

 private:
  Reply refuse(int status, const std::string& code, const std::string& detail);
  Reply forbid(const std::string& reason);

  RelayConfig cfg_;
  Members members_;
  common::Logger* log_;
  mutable std::mutex mu_;  // one transaction at a time on the store's connection
  RelayStore store_;
  RelayStats stats_;
};

}  // namespace p2b::pfcb
