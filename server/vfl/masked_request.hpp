// The P2BR request: what the active party asks passive party j for each
// round, boxed from the active party's to the party's pinned static X25519
// key (docs/formats.md, "Vertical federation: masked request"). The box is
// the authenticator: only the holder of the active party's secret key can
// make a request that opens, and its round_id, bound into the nonce, only
// grows. It carries the round, the user token and the item ids; nothing of
// the model or the rewards.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "vfl/masked_message.hpp"

namespace p2b::vfl {

constexpr uint32_t kMaskedRequestFormat = 1;
constexpr std::size_t kRequestPrefixBytes = 16;  // "P2BR", party_index, round_id in clear
constexpr std::size_t kRequestHeaderBytes = 40;  // inside the box, before the item ids

// 16 + 16 + 40 + 4 n = 72 + 4 n bytes.
std::size_t masked_request_bytes(uint32_t n_items);

struct MaskedRequest {
  uint32_t party_index = 0;
  uint64_t round_id = 0;  // >= 1, strictly increasing per active party -> party
  uint8_t user_token[kUserTokenBytes] = {};
  std::vector<uint32_t> item_ids;  // 1..kMaxMaskedItems
};

// The active party's side. A round_id must never be sealed twice to the
// same party: it makes the nonce.
bool seal_masked_request(const MaskedRequest& r, const uint8_t* ap_box_sk,
                         const uint8_t* party_box_pk, std::vector<uint8_t>* out, std::string* err);

enum class RequestStatus {
  ok,
  bad_length,    // too short, or not 72 + 4 n for its own n
  malformed,     // not "P2BR", another format, or a boxed party or round other than the clear one
  wrong_party,   // for another party index
  replayed,      // round_id <= the last answered: a replay, a reordering or a reused nonce
  not_openable,  // the box does not open: not from the pinned active party, or changed
  bad_items,     // n = 0 or n > kMaxMaskedItems
};
const char* request_status_name(RequestStatus s);

// The party's side. `out` is written only when the result is ok.
RequestStatus open_masked_request(const uint8_t* msg, std::size_t len, const uint8_t* party_box_sk,
                                  const uint8_t* ap_box_pk, uint32_t party_index,
                                  uint64_t last_round_id, MaskedRequest* out);

// The checks after the box opened, on the 16-byte clear prefix and the
// plaintext of `len` bytes (tests and fuzzing reach them without the box);
// the prefix must already have passed (party, round) as open_masked_request
// checks it.
RequestStatus check_request_plaintext(const uint8_t* prefix, const uint8_t* plain, std::size_t len,
                                      MaskedRequest* out);

}  // namespace p2b::vfl
