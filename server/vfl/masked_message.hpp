// The P2BV message: one passive party's masked vectors Q^j x_i^j for the K'
// items of one round, boxed from the party's to the active party's pinned
// static X25519 key (docs/formats.md, "Vertical federation: masked message").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "vfl/mask_bundle.hpp"

namespace p2b::vfl {

constexpr uint32_t kMaskedMessageFormat = 1;
constexpr std::size_t kUserTokenBytes = 16;
constexpr std::size_t kMaskedPrefixBytes = 16;  // "P2BV", party_index, round_id in clear
constexpr std::size_t kMaskedHeaderBytes = 68;  // inside the box
constexpr std::size_t kMaskedMacBytes = 16;     // crypto_box_easy's Poly1305 tag
constexpr uint32_t kMaxMaskedItems = 4096;

// 16 + 16 + 68 + 8 K' d = 100 + 8 K' d bytes, whatever the values.
std::size_t masked_message_bytes(uint32_t k_items, uint32_t d);

struct MaskedHeader {
  uint8_t mask_id[kMaskIdBytes] = {};
  uint64_t epoch = 0;
  uint32_t party_index = 0;
  uint64_t round_id = 0;  // >= 1, strictly increasing per party -> active party
  uint8_t user_token[kUserTokenBytes] = {};
  uint32_t k_items = 0;
  uint32_t d = 0;
};

struct MaskedMessage {
  MaskedHeader header;
  std::vector<double> values;  // K' x d, row-major: item i is values[i d .. i d + d)
};

// The X25519 shared key of a pinned key pair (crypto_box_beforenm): the
// scalar multiplication is done once per peer, not once per message.
struct BoxKey {
  uint8_t key[32] = {};
};
bool box_key(const uint8_t* my_box_sk, const uint8_t* their_box_pk, BoxKey* out);

// The party's side. `values` holds k_items * d finite doubles. A round_id
// must never be sealed twice under the same key pair: it makes the nonce.
bool seal_masked_message(const MaskedHeader& h, const double* values, const uint8_t* party_box_sk,
                         const uint8_t* ap_box_pk, std::vector<uint8_t>* out, std::string* err);
// The same with the party's and the active party's shared key precomputed.
bool seal_masked_message(const MaskedHeader& h, const double* values, const BoxKey& key,
                         std::vector<uint8_t>* out, std::string* err);

enum class MessageStatus {
  ok,
  bad_length,    // too short, or not 100 + 8 K' d for its own K' and d
  malformed,     // not "P2BV", another format, or a clear prefix the box contradicts
  wrong_party,   // from a party index other than the expected one
  replayed,      // round_id <= the last accepted: a replay or a reordering
  not_openable,  // the box does not open: other keys, or any changed bit
  stale_mask,    // a mask_id or epoch other than the current mask's
  wrong_shape,   // K' or d other than expected
  non_finite,    // a NaN or an infinity among the values
};

const char* message_status_name(MessageStatus s);

struct MessageExpect {
  uint32_t party_index = 0;
  MaskVersion current;
  uint32_t k_items = 0;
  uint32_t d = 0;
  uint64_t last_round_id = 0;  // 0: none accepted yet
};

// The active party's side. `out` is written only when the result is ok; the
// caller then records out->header.round_id as the last accepted.
MessageStatus open_masked_message(const uint8_t* msg, std::size_t len, const uint8_t* ap_box_sk,
                                  const uint8_t* party_box_pk, const MessageExpect& expect,
                                  MaskedMessage* out);
// The same with the shared key precomputed (box_key(ap_sk, party_pk)).
MessageStatus open_masked_message(const uint8_t* msg, std::size_t len, const BoxKey& key,
                                  const MessageExpect& expect, MaskedMessage* out);

// The checks of the clear prefix, then those after the box opened, on the
// plaintext (tests and fuzzing reach them without the box).
MessageStatus check_masked_plaintext(const uint8_t* prefix, const uint8_t* plain, std::size_t len,
                                     const MessageExpect& expect, MaskedMessage* out);

}  // namespace p2b::vfl
