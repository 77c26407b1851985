// Save/restore of an agent's learned state (proto/p2b_state.proto):
//
//   "P2BS" | StateHeader | K*(d+1) StateColumn | pending PendingDecision
//          | window Interaction | outbox Interaction | keyed BLAKE2b-256 MAC of all before
//
// every message length-delimited, every field required and fixed-width, so
// the size is a function of the configuration alone. The codec reads and
// writes the agent's parts through their interfaces; agent_storage.cpp adds
// the magic, the MAC and the optional encryption at rest.
#pragma once

#include <cstddef>
#include <cstdint>

#include "agent_state.hpp"
#include "p2b_state.pb.h"

namespace p2b {

// Largest d a saved state can hold, as generated (proto/p2b_state.options).
constexpr uint32_t kStateMaxDim = sizeof(p2b_v1_StateColumn::values) / sizeof(double);
static_assert(sizeof(p2b_v1_PendingDecision::context) / sizeof(double) == kStateMaxDim,
              "columns and contexts hold d values each");

// StateHeader.format this version writes and reads. 2 had an unkeyed hash;
// 3 (no shuffler-key list) is still read.
constexpr uint32_t kStateFormat = 4;
constexpr uint32_t kOldestReadableStateFormat = 3;

// The format a body's header names without authenticating or decoding the
// rest (0 when unreadable): tells an older state from a corrupted one.
uint32_t peek_format(const uint8_t* body, std::size_t len);

// Writes the body (everything between the magic and the hash) through `os`,
// which may be a sizing stream.
bool encode_state(pb_ostream_t* os, const AgentState& s);

// Decodes a body. With `apply` false it only validates and `s` is left as it
// was; run it again with `apply` true on the same bytes to apply them.
Status decode_state(const uint8_t* body, std::size_t len, AgentState& s, bool apply);

}  // namespace p2b
