#include "arm_set.hpp"

namespace p2b {

void ArmSet::init(const Shape& shape, char* arena, const ArenaLayout& layout) {
  n_actions_ = shape.n_actions;
  dim_ = shape.dim;
  factors_.set(reinterpret_cast<real*>(arena + layout.factor));
  b_.set(reinterpret_cast<real*>(arena + layout.b));
  theta_.set(reinterpret_cast<real*>(arena + layout.theta));
  scratch_.set(reinterpret_cast<real*>(arena + layout.scratch));
  staging_.set(reinterpret_cast<double*>(arena + layout.staging));
}

void ArmSet::reset_all(real lambda) {
  for (uint32_t a = 0; a < n_actions_; ++a) arm_reset(arm(a), lambda);
}

void ArmSet::refresh_all_theta() {
  for (uint32_t a = 0; a < n_actions_; ++a) arm_refresh_theta(arm(a), scratch());
}

}  // namespace p2b
