// The K arms of an agent (ridge_arm.hpp: a Cholesky factor, b and theta
// each) and the scratch blocks their updates are staged in.
#pragma once

#include <cstdint>

#include "arena_layout.hpp"
#include "arm_lanes.hpp"
#include "relative_ptr.hpp"
#include "ridge_arm.hpp"

namespace p2b {

class ArmSet {
 public:
  // Points the set at its arena blocks; the arms hold nothing until reset.
  void init(const Shape& shape, char* arena, const ArenaLayout& layout);

  uint32_t count() const { return n_actions_; }
  uint32_t dim() const { return dim_; }

  ArmView arm(uint32_t a) const {
    const std::size_t d = dim_;
    return ArmView{factors_.get() + a * d * d,
                   b_.get() + a * d,
                   zb_.get() + a * d,
                   inv_diag_.get() + a * d,
                   lane_group(a / kArmLanes),
                   a % kArmLanes,
                   dim_};
  }

  // The scoring copy of arms kArmLanes * g ... kArmLanes * g + 3
  // (arm_lanes.hpp).
  real* lane_group(uint32_t g) const { return lanes_.get() + g * lane_group_reals(dim_); }
  uint32_t lane_groups() const { return static_cast<uint32_t>(lane_group_count(n_actions_)); }

  // Every arm back to A = lambda I, b = 0; the spare lanes of the
  // last lane group to the identity.
  void reset_all(real lambda);

  // A rank-1 update of arm `a` staged in scratch; false, with nothing staged
  // for commit and the arm unchanged, if it would leave the savable bounds.
  bool stage_update(uint32_t a, const real* x, real r) const {
    return arm_stage_update(arm(a), x, r, scratch());
  }
  // Applies the update staged last, to the arm it was staged for.
  void commit_update(uint32_t a) { arm_commit_update(arm(a), scratch()); }

  // What derives from every arm's factor and b (arm_refresh_theta).
  void refresh_all_theta();

  // d * d + 2 * d reals shared by staged updates, factor validation and
  // theta refreshes. Whatever it holds is dead between calls.
  real* scratch() const { return scratch_.get(); }
  // K * staged_arm_reals(d) reals: every arm of an incoming model, staged
  // until all have passed (staged_arms.hpp).
  real* model_staging() const { return staging_.get(); }

 private:
  uint32_t n_actions_ = 0;
  uint32_t dim_ = 0;
  RelativePtr<real> factors_;
  RelativePtr<real> b_;
  RelativePtr<real> zb_;
  RelativePtr<real> inv_diag_;
  RelativePtr<real> lanes_;
  RelativePtr<real> scratch_;
  RelativePtr<real> staging_;
};

}  // namespace p2b
