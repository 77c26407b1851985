// Decisions awaiting a reward: `capacity` slots, the one of id n at n mod
// capacity, each with the normalised context it was decided on. A new
// decision overwrites the oldest, since apps often never reward most of them.
#pragma once

#include <cstdint>

#include "arena_layout.hpp"
#include "p2b/status.hpp"
#include "relative_ptr.hpp"

namespace p2b {

constexpr uint32_t kSlotEmpty = 0;
constexpr uint32_t kSlotAwaiting = 1;
constexpr uint32_t kSlotRewarded = 2;

struct PendingSlot {
  uint64_t id;
  uint32_t action;
  uint32_t code;   // 0 in memory: computed from the context when saved
  uint32_t state;  // kSlotEmpty, kSlotAwaiting or kSlotRewarded
  uint32_t reserved;
};

class PendingRing {
 public:
  // Empty ring (the arena is zeroed) whose first id is 1; 0 is never an id.
  void init(const Shape& shape, char* arena, const ArenaLayout& layout);

  uint32_t capacity() const { return capacity_; }
  uint64_t next_id() const { return next_id_; }

  // Records a decision under the next id and returns that id. Its code is
  // not computed: only a released tuple needs one (reporter.hpp).
  uint64_t push(uint32_t action, const real* xn);

  // The slot of `id` if it awaits a reward; otherwise unknown_decision (0 or
  // never issued), expired_decision (overwritten) or already_rewarded.
  Status find_awaiting(uint64_t id, uint32_t* slot) const;
  void mark_rewarded(uint32_t slot) { slots_.get()[slot].state = kSlotRewarded; }

  const PendingSlot& slot(uint32_t i) const { return slots_.get()[i]; }
  const real* context(uint32_t i) const {
    return contexts_.get() + static_cast<std::size_t>(i) * dim_;
  }

  // Empties every slot; ids keep counting.
  void clear();

  // Restore: true when `s` may sit in slot `i` of a ring whose next id is
  // `next_id` (an empty slot always may).
  bool slot_consistent(uint32_t i, const PendingSlot& s, uint64_t next_id) const;
  void restore_slot(uint32_t i, const PendingSlot& s, const double* context);
  void restore_next_id(uint64_t next_id) { next_id_ = next_id; }

 private:
  uint32_t capacity_ = 0;
  uint32_t dim_ = 0;
  uint64_t next_id_ = 0;
  RelativePtr<PendingSlot> slots_;
  RelativePtr<real> contexts_;
};

}  // namespace p2b
