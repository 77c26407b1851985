// The agent's side of the relay (docs/pfcb-relay.md): wraps a CmabAgent so
// that its shares reach the other agents and theirs reach it.
//
//  - after each observe(), a waiting share is sealed (P2BX) into an outbox;
//  - flush() posts the outbox in order and drops a posting only once the
//    relay acknowledged it (200), or said it already holds it (409: an
//    earlier try was stored but its answer lost); while the relay is away
//    (no answer, 5xx) everything waits for the next flush;
//  - fetch() reads the others' postings after its cursor, each GET signed
//    with the agent's key (read_auth.hpp: the relay serves members only),
//    opens each and applies it with CmabAgent::apply_share, then moves the
//    cursor on;
//  - with a checkpoint path, every change (after_observe, a flush that
//    delivered, a fetch that moved the cursor) is written to disk before the
//    call returns (peer_checkpoint.hpp), and no posting is sent before the
//    checkpoint holding it is on disk. resume() restarts from it: nothing the
//    relay acknowledged is sent as new, nothing waiting is lost, and the
//    agent's ledger and replay counters survive.
//
// Nothing here waits for another agent: a silent agent only means fewer
// postings to fetch. Not thread-safe: one agent, one thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/json_log.hpp"
#include "p2b/cmab.hpp"
#include "pfcb/relay_link.hpp"
#include "pfcb/wire/pfcb_wire.hpp"

namespace p2b::pfcb {

struct PeerStats {
  uint64_t shares_sealed = 0;
  uint64_t seal_failures = 0;
  uint64_t fetches = 0;
  uint64_t fetch_failures = 0;     // no answer, not 200, or a misframed body
  uint64_t fetches_forbidden = 0;  // of those, 403: not a member, clock off, or a replay
  uint64_t postings_received = 0;
  uint64_t postings_refused = 0;  // did not open (by reason below) or came from itself
  uint64_t shares_applied = 0;
  uint64_t shares_stale = 0;        // apply_share: replayed (an older release of that sender)
  uint64_t producers_accepted = 0;  // summed CmabApplyResult
  uint64_t producers_rejected = 0;
  uint64_t checkpoints = 0;
  uint64_t checkpoint_failures = 0;
  std::map<std::string, uint64_t> refused_by_reason;
};

struct PeerConfig {
  uint32_t producers = 0;          // m
  std::vector<VerifyKey> members;  // the members file, in order
  std::array<uint8_t, kSignKeyBytes> sign_sk{};
  std::array<uint8_t, kConsortiumKeyBytes> consortium_key{};
  uint32_t fetch_limit = 256;  // postings per GET
  // The restart point; empty: none, and a crash loses what the client held.
  std::string checkpoint_path;
  std::array<uint8_t, 32> state_key{};  // encrypts and authenticates it
};

class PeerClient {
 public:
  // `agent` must outlive the client; its max_peers must cover the members.
  // The signing key must be a member's (its position is own_index()).
  PeerClient(CmabAgent* agent, const PeerConfig& cfg, RelayLink link,
             common::Logger* log = nullptr);
  ~PeerClient();
  PeerClient(const PeerClient&) = delete;
  PeerClient& operator=(const PeerClient&) = delete;

  // Whether the signing key is a member's; nothing works otherwise.
  bool ok() const { return own_index_ < members_.size(); }
  uint32_t own_index() const { return own_index_; }
  const uint8_t* own_fp() const { return own_fp_; }

  // Loads the checkpoint, if the path holds one, into this client and its
  // agent (which must have the saved configuration): all or nothing. Call it
  // once, before anything else. `*restored` says whether there was one.
  bool resume(bool* restored, std::string* err);

  // After CmabAgent::observe(): seals a waiting share into the outbox, then
  // checkpoints. True if a share was queued. Call it right after observe():
  // a crash between the two loses that round (the agent restarts before it).
  bool after_observe();
  // Posts the outbox (see Outbox::flush), after retrying a checkpoint that
  // failed: nothing leaves that is not on disk.
  std::size_t flush();
  // Whether the last checkpoint was written (true without a path).
  bool checkpointed() const { return !dirty_; }
  // Fetches up to `max_batches` batches of others' postings and applies
  // them. Returns how many shares were applied.
  std::size_t fetch(std::size_t max_batches = 16);

  uint64_t cursor() const { return cursor_; }
  const Outbox& outbox() const { return outbox_; }
  Outbox& outbox() { return outbox_; }
  const PeerStats& stats() const { return stats_; }

 private:
  void refuse(const std::string& reason);
  bool checkpoint();

  CmabAgent* agent_;
  PeerConfig cfg_;
  Members members_;
  RelayLink link_;
  common::Logger* log_;
  uint32_t own_index_ = UINT32_MAX;
  uint8_t own_fp_[kFpBytes] = {};
  uint8_t consortium_fp_[kFpBytes] = {};
  uint64_t last_read_us_ = 0;  // the last signed read's time: the next is above it
  Outbox outbox_;
  uint64_t cursor_ = 0;
  bool dirty_ = false;  // a change not yet checkpointed
  PeerStats stats_;
};

}  // namespace p2b::pfcb
