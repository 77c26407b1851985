// One round of the active party's exchange with the passive parties
// (docs/vertical-services.md): a boxed P2BR request to every party at once,
// one deadline bounding each exchange, and each P2BV answer opened in its
// party's thread as it arrives, so the parties' decryptions overlap instead
// of queueing after the last reply. What the answers mean for the decision
// is the caller's (ApService).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vfl/features_file.hpp"
#include "vfl/mask_bundle.hpp"
#include "vfl/masked_message.hpp"

namespace httplib {
class Client;
}

namespace p2b::vfl {

struct PartyLink {
  std::string url;  // http://HOST:PORT
  uint8_t box_pk[32] = {};
};

// What one passive party gave in one round.
struct PartAnswer {
  bool transport_ok = false;
  int status = 0;
  std::string body;
  std::string error;  // here: an answer too large, or a request that did not seal; the caller
                      // sets the rest (the failure's code; empty when the part was added)
  MessageStatus opened = MessageStatus::bad_length;  // a 200 answer, opened
  MaskedMessage msg;                                 // when opened is ok
  // A 409 replayed's next_round_id: where a restarted party resumes
  // (vfl/round_reserve.hpp); 0 when the answer named none.
  uint64_t next_round_id = 0;
};

// The round to ask every party about.
struct RoundAsk {
  uint64_t round_id = 0;
  UserToken user{};
  std::vector<uint32_t> items;
  const MaskBlock* block = nullptr;  // the current mask: what answers must carry
  const std::vector<uint64_t>* last_accepted = nullptr;  // per party index: the last accepted
  int timeout_ms = 2000;
};

// One kept-alive connection per party, reused round after round: a round
// costs no TCP handshake, and no request waits for the last one's ACK
// (TCP_NODELAY). Each is used by one exchange at a time (the active party
// decides one round at a time); one that a party's restart closed is
// opened again by the next request.
class PartyClients {
 public:
  PartyClients(const std::vector<PartyLink>& links, int timeout_ms);
  ~PartyClients();
  PartyClients(const PartyClients&) = delete;
  PartyClients& operator=(const PartyClients&) = delete;
  httplib::Client& at(std::size_t j) { return *clients_[j]; }

 private:
  std::vector<std::unique_ptr<httplib::Client>> clients_;
};

struct PartyChannels {
  const std::vector<PartyLink>* links;  // parties 1..M-1, in order
  PartyClients* clients;                // per link
  const std::vector<BoxKey>* keys;      // per link: the precomputed shared box key
  const uint8_t* ap_box_sk;             // seals the requests
};

// One answer per link, in order. Never throws: a party that cannot be
// reached, or whose request does not seal, is an answer that says so.
std::vector<PartAnswer> ask_parties(const PartyChannels& ch, const RoundAsk& ask);

// Wipes the masked values the answers carry (a round given up).
void wipe_answers(std::vector<PartAnswer>* answers);

}  // namespace p2b::vfl
