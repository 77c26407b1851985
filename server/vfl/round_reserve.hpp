// Round ids reserved on disk in blocks (issue #30). A round_id makes a box
// nonce (P2BR from the active party, P2BV back), so no round_id may be
// sealed twice, even across a kill -9 or a power loss. Each side keeps in
// its state file not the last round it used but a ceiling: every round up
// to it may have been used. Passing the ceiling writes a new one
// kRoundReserve - 1 rounds ahead (one fsync); a restart resumes above the
// ceiling and skips the unused rest of the block.
#pragma once

#include <cstdint>

namespace p2b::vfl {

// Rounds per fsync, at the active party and at each passive party. An
// fsync of the state file costs 3-6 ms on the disks measured
// (docs/benchmarks.md, "VFL round"), a round well under one: at 1024 it is
// a few microseconds a round. A restart skips at most this many ids, of
// 2^64; nothing else grows with it.
inline constexpr uint64_t kRoundReserve = 1024;

// The ceiling to persist when `round` has passed the current one.
inline uint64_t reserve_ceiling(uint64_t round) {
  return round > UINT64_MAX - (kRoundReserve - 1) ? UINT64_MAX : round + (kRoundReserve - 1);
}

// A passive party that restarted refuses every round up to its ceiling and
// says where it resumes (`next_round_id` in its 409 replayed). That answer
// is not authenticated, so the active party moves on to it only when a
// genuine party could have said it: above the last round used, and no
// further than a block past the active party's own ceiling (a party only
// ever reserves a block past a round the active party sent it).
inline bool plausible_floor(uint64_t floor, uint64_t last_round, uint64_t ap_ceiling) {
  return floor > last_round + 1 && floor - 1 <= reserve_ceiling(ap_ceiling);
}

}  // namespace p2b::vfl
