// The bodies of p2b-fclub-local's journal entries (local_journal.hpp): a
// reward as the service took it, and the id of an outbox message sent. Kept
// apart from the service so that their layout is in one place, and apart
// from the journal, which seals bodies without reading them.
#pragma once

#include <cstdint>
#include <string>

#include "fclub/local_requests.hpp"

namespace p2b::fclub {

// user (4 bytes LE), y, then the dim entries of x (IEEE doubles, the
// machine's byte order: a store stays on the machine kind that wrote it),
// then the id's length (1 byte, 0: none) and its bytes.
std::string encode_reward(const RewardRequest& r);
// False when `body` is not a reward of `dim` entries for a user below
// `users` (another deployment's store).
bool decode_reward(const std::string& body, uint32_t dim, uint32_t users, RewardRequest* out);

// What a sent outbox message was: a phase-done (phase) or an upload
// (phase, local cluster, seq). Replay checks it against the rebuilt
// outbox's front, so a journal and an outbox that disagree stop the start.
std::string outbox_id(bool phase_done, uint32_t phase, uint32_t local_cluster, uint32_t seq);

}  // namespace p2b::fclub
