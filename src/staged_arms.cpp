#include "staged_arms.hpp"

namespace p2b {

namespace {

real* staged_slot(const ArmSet& arms, uint32_t arm_index) {
  return arms.model_staging() + arm_index * staged_arm_reals(arms.dim());
}

}  // namespace

void stage_arm(const ArmSet& arms, uint32_t arm_index, const real* l, const double* b) {
  const uint32_t d = arms.dim();
  real* out = staged_slot(arms, arm_index);
  for (uint32_t j = 0; j < d; ++j) {
    for (uint32_t i = j; i < d; ++i) *out++ = l[static_cast<std::size_t>(j) * d + i];
  }
  for (uint32_t i = 0; i < d; ++i) *out++ = static_cast<real>(b[i]);
}

void commit_staged_arms(ArmSet& arms) {
  const uint32_t d = arms.dim();
  for (uint32_t arm_index = 0; arm_index < arms.count(); ++arm_index) {
    const real* in = staged_slot(arms, arm_index);
    const ArmView target = arms.arm(arm_index);
    // The factor's upper triangle is kept zero, as a factorisation leaves it.
    for (uint32_t j = 0; j < d; ++j) {
      for (uint32_t i = 0; i < d; ++i) {
        target.L[static_cast<std::size_t>(j) * d + i] = i >= j ? *in++ : real(0);
      }
    }
    for (uint32_t i = 0; i < d; ++i) target.b[i] = *in++;
    arm_refresh_theta(target, arms.scratch());
  }
}

}  // namespace p2b
