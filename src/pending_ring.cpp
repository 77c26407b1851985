#include "pending_ring.hpp"

#include <cstring>

namespace p2b {

void PendingRing::init(const Shape& shape, char* arena, const ArenaLayout& layout) {
  capacity_ = shape.pending_capacity;
  dim_ = shape.dim;
  next_id_ = 1;
  slots_.set(reinterpret_cast<PendingSlot*>(arena + layout.pending));
  contexts_.set(reinterpret_cast<real*>(arena + layout.pending_x));
}

uint64_t PendingRing::push(uint32_t action, const real* xn) {
  const uint64_t id = next_id_;
  const uint32_t i = static_cast<uint32_t>(id % capacity_);
  PendingSlot& s = slots_.get()[i];
  s.id = id;
  s.action = action;
  s.code = 0;
  s.state = kSlotAwaiting;
  std::memcpy(contexts_.get() + static_cast<std::size_t>(i) * dim_, xn, dim_ * sizeof(real));
  next_id_ = id + 1;
  return id;
}

Status PendingRing::find_awaiting(uint64_t id, uint32_t* slot) const {
  if (id == 0 || id >= next_id_) return Status::unknown_decision;
  if (next_id_ - id > capacity_) return Status::expired_decision;
  const uint32_t i = static_cast<uint32_t>(id % capacity_);
  const PendingSlot& s = slots_.get()[i];
  if (s.id != id) return Status::expired_decision;
  if (s.state == kSlotRewarded) return Status::already_rewarded;
  *slot = i;
  return Status::ok;
}

void PendingRing::clear() {
  std::memset(slots_.get(), 0, capacity_ * sizeof(PendingSlot));
  std::memset(contexts_.get(), 0, static_cast<std::size_t>(capacity_) * dim_ * sizeof(real));
}

bool PendingRing::slot_consistent(uint32_t i, const PendingSlot& s, uint64_t next_id) const {
  if (s.state == kSlotEmpty) return true;
  return s.id > 0 && s.id < next_id && s.id % capacity_ == i && next_id - s.id <= capacity_;
}

void PendingRing::restore_slot(uint32_t i, const PendingSlot& s, const double* context) {
  slots_.get()[i] = s;
  real* x = contexts_.get() + static_cast<std::size_t>(i) * dim_;
  for (uint32_t k = 0; k < dim_; ++k) x[k] = static_cast<real>(context[k]);
}

}  // namespace p2b
