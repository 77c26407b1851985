// What fuzz_mask_bundle, fuzz_masked_message and their seeds (make_corpus.cpp)
// share: the PMG is the fixture's analyzer signing key, the receiving party
// of a bundle and the sender of a message is the current shuffler box key,
// the active party is the current analyzer box key, and one mask of d = 6
// split {2, 4} is the current one.
#pragma once

#include <cstring>

#include "fuzz_fixture.hpp"
#include "vfl/mask.hpp"
#include "vfl/mask_bundle.hpp"
#include "vfl/masked_message.hpp"

namespace p2b_fuzz::vfl {

constexpr uint32_t kD = 6;
constexpr uint32_t kParty = 1;
constexpr uint32_t kItems = 3;
constexpr uint64_t kEpoch = 5;

inline const p2b::server::BoxKey& party_key() {
  return keys().shuffler[1];
}
inline const p2b::server::BoxKey& ap_key() {
  return keys().analyzer[1];
}

inline const p2b::vfl::Partition& partition() {
  static const p2b::vfl::Partition p{2, 4};
  return p;
}

inline const p2b::vfl::Mask& mask() {
  static const p2b::vfl::Mask m = [] {
    uint8_t seed[p2b::vfl::kMaskSeedBytes];
    std::memset(seed, 0x3D, sizeof seed);
    p2b::vfl::Mask out;
    require(p2b::vfl::draw_mask(seed, kD, kEpoch, &out) == p2b::vfl::MaskStatus::ok, "draw_mask");
    return out;
  }();
  return m;
}

inline p2b::vfl::MessageExpect message_expect() {
  p2b::vfl::MessageExpect e;
  e.party_index = kParty;
  std::memcpy(e.current.mask_id, mask().mask_id, sizeof e.current.mask_id);
  e.current.epoch = kEpoch;
  e.k_items = kItems;
  e.d = kD;
  e.last_round_id = 0;
  return e;
}

}  // namespace p2b_fuzz::vfl
