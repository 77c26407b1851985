// What a SharedModel's arena holds: a header (this struct) and, after it,
// blocks of the model's scalar type. Offsets, not pointers, so the arena
// holds no absolute address.
#pragma once

#include <cstddef>
#include <cstdint>

#include "p2b/shared_model.hpp"
#include "random.hpp"

namespace p2b {

constexpr uint32_t kSharedMagic = 0x4C423250U;  // "P2BL" little-endian
constexpr uint32_t kSharedLayoutVersion = 2;

enum : uint32_t { kSharedSlotEmpty = 0, kSharedSlotAwaiting = 1, kSharedSlotRewarded = 2 };

struct SharedSlot {
  uint64_t id;
  uint32_t state;
  uint32_t item;
};

struct SharedState {
  uint32_t magic = 0;  // magic and layout_version lead: SharedModel::check reads them
  uint32_t layout_version = 0;
  SharedConfig cfg{};
  Rng rng{};
  uint64_t next_id = 1;
  uint64_t updates = 0;
  // Signed warm starts: the pinned key (cfg.analyzer_verify_key is cleared,
  // so the arena keeps no caller address), its fingerprint, and the version
  // applied last.
  bool has_verify_key = false;
  uint8_t verify_pk[kPublicKeyBytes] = {};
  uint8_t verify_fp[kFingerprintBytes] = {};
  uint64_t model_version = 0;
  // Byte offsets from the header of each block; d = cfg.dim, P = pending.
  std::size_t factor = 0;    // L, d x d column-major lower
  std::size_t vector_b = 0;  // b, d
  std::size_t theta = 0;     // d
  std::size_t staging = 0;   // d x d + 3 d: a staged update (ridge_arm's layout)
  std::size_t scratch = 0;   // 9 d: 4 item contexts, 4 whitened items, a LinTS draw
  std::size_t totals = 0;    // max_items doubles: one decision's scores
  std::size_t contexts = 0;  // P x d: the pending decisions' contexts
  std::size_t slots = 0;     // P SharedSlot
  std::size_t total = 0;     // the arena's size

  static SharedState& of(SharedModel* m) { return *reinterpret_cast<SharedState*>(m); }
  static const SharedState& of(const SharedModel* m) {
    return *reinterpret_cast<const SharedState*>(m);
  }
  template <typename T>
  T* block(std::size_t offset) {
    return reinterpret_cast<T*>(reinterpret_cast<char*>(this) + offset);
  }
  template <typename T>
  const T* block(std::size_t offset) const {
    return reinterpret_cast<const T*>(reinterpret_cast<const char*>(this) + offset);
  }
  SharedSlot* slot_array() { return block<SharedSlot>(slots); }
  const SharedSlot* slot_array() const { return block<SharedSlot>(slots); }
};

// The arena's layout for a valid config (offsets and total).
void shared_layout(const SharedConfig& cfg, SharedState* s);
// bad_config unless every field is in range.
Status validate_shared_config(const SharedConfig& cfg);
// theta = A^-1 b from the factor and b, after a restore.
void shared_refresh_theta(SharedState& s);
// Replaces the factor and b by the staged ones (the staging block: factor,
// then b) and refreshes theta; for a warm start that passed every check.
void shared_commit_staged(SharedState& s);

}  // namespace p2b
