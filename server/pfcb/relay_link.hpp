// How an agent reaches p2b-relay (docs/pfcb-relay.md): the two HTTP calls
// and the outbox that holds postings until the relay acknowledged them.
// Apart from PeerClient so that the ledger test and tools can drive an
// outbox of postings without an agent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/json_log.hpp"

namespace p2b::pfcb {

// The two calls a client makes; the HTTP one is http_relay_link. status < 0:
// no answer. `cursor` gets the P2B-Cursor header ("" if absent).
struct RelayLink {
  using Headers = std::multimap<std::string, std::string>;
  std::function<int(const std::string& path, const std::string& body, std::string* reply)> post;
  // Sends `headers` (a signed read's, read_auth.hpp). Reads at most
  // max_reply bytes of the answer; a larger one is no answer (-1).
  std::function<int(const std::string& path, const Headers& headers, std::size_t max_reply,
                    std::string* reply, std::string* cursor)>
      get;
};

// A RelayLink over HTTP to HOST:PORT (a new connection per call, so a relay
// that restarts on the same port is reached again at once).
RelayLink http_relay_link(const std::string& host, int port, double timeout_seconds = 5.0);

// Postings waiting for the relay's acknowledgement, in the order they were
// sealed (a sender's releases must reach the relay in order: it refuses a
// release at or below the last it stored from that sender).
class Outbox {
 public:
  struct Counts {
    uint64_t acked = 0;           // 200
    uint64_t already_stored = 0;  // 409: stored by an earlier try
    uint64_t refused = 0;         // any other 4xx: dropped, logged
    uint64_t send_failures = 0;   // no answer or 5xx: kept for the next flush
  };
  void push(std::vector<uint8_t> posting, uint32_t release);
  // Posts until empty or the relay is away. Returns how many left the outbox.
  std::size_t flush(const RelayLink& link, common::Logger* log);
  std::size_t size() const { return queue_.size(); }
  const Counts& counts() const { return counts_; }
  // Called with each posting's release when it leaves with a 200 or a 409.
  std::function<void(uint32_t release, int status)> on_delivered;

  // What waits, oldest first, as (release, bytes): what a checkpoint keeps.
  template <typename Visit>
  void for_each(Visit visit) const {
    for (const Item& item : queue_) visit(item.release, item.bytes);
  }
  void clear() { queue_.clear(); }

 private:
  struct Item {
    std::vector<uint8_t> bytes;
    uint32_t release = 0;
  };
  std::deque<Item> queue_;
  Counts counts_;
};

}  // namespace p2b::pfcb
