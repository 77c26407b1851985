#include "arm_set.hpp"

namespace p2b {

void ArmSet::init(const Shape& shape, char* arena, const ArenaLayout& layout) {
  n_actions_ = shape.n_actions;
  dim_ = shape.dim;
  factors_.set(reinterpret_cast<real*>(arena + layout.factor));
  b_.set(reinterpret_cast<real*>(arena + layout.b));
  zb_.set(reinterpret_cast<real*>(arena + layout.zb));
  inv_diag_.set(reinterpret_cast<real*>(arena + layout.inv_diag));
  lanes_.set(reinterpret_cast<real*>(arena + layout.lanes));
  scratch_.set(reinterpret_cast<real*>(arena + layout.scratch));
  staging_.set(reinterpret_cast<real*>(arena + layout.staging));
}

void ArmSet::reset_all(real lambda) {
  for (uint32_t a = 0; a < n_actions_; ++a) arm_reset(arm(a), lambda);
  const uint32_t last = lane_groups() - 1;
  for (uint32_t a = n_actions_; a < lane_groups() * kArmLanes; ++a) {
    lanes_store_spare(dim_, lane_group(last), a % kArmLanes);
  }
}

void ArmSet::refresh_all_theta() {
  for (uint32_t a = 0; a < n_actions_; ++a) arm_refresh_theta(arm(a), scratch());
}

}  // namespace p2b
