// Import and export of per-arm statistics (A or its Cholesky factor, and b).
// Import is all-or-nothing: every arm is factored and staged before any is
// replaced (staged_arms.hpp).
#include <cmath>
#include <cstring>

#include "agent_state.hpp"
#include "staged_arms.hpp"

namespace p2b {

namespace {

// Finite and representable as `real`; an out-of-range value would become Inf.
bool all_representable(const double* v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (!fits_real(v[i])) return false;
  }
  return true;
}

// Copies the lower triangle of a supplied factor; false unless every entry is
// within the bounds of ridge_arm.hpp (diagonal included).
bool copy_factor(const double* l, uint32_t d, real* out) {
  for (uint32_t j = 0; j < d; ++j) {
    for (uint32_t i = 0; i < d; ++i) {
      const double v = i >= j ? l[j * d + i] : 0.0;
      if (i >= j && !factor_entry_ok(v, i == j)) return false;
      out[j * d + i] = static_cast<real>(v);
    }
  }
  return true;
}

bool factor_arm(const double* a, uint32_t d, StatsForm form, real* out) {
  return form == StatsForm::gram ? cholesky_factor(a, d, out) : copy_factor(a, d, out);
}

// Every value finite and within the bounds a saved state may hold.
Status check_stats(const double* a, const double* b, std::size_t n_arms, std::size_t d) {
  if (!all_representable(a, d * d * n_arms) || !all_representable(b, d * n_arms)) {
    return Status::non_finite;
  }
  for (std::size_t i = 0; i < d * n_arms; ++i) {
    if (!vector_entry_ok(b[i])) return Status::non_finite;
  }
  return Status::ok;
}

}  // namespace

Status Agent::import_stats(const double* a, const double* b, uint32_t n_actions, uint32_t dim,
                           StatsForm form) {
  if (a == nullptr || b == nullptr) return Status::null_pointer;
  if (form != StatsForm::gram && form != StatsForm::cholesky) return Status::bad_config;
  ArmSet& arms = AgentState::of(this).arms;
  if (n_actions != arms.count() || dim != arms.dim()) return Status::dimension_mismatch;
  const std::size_t d = dim;
  const std::size_t per_arm = d * d;
  const Status st = check_stats(a, b, n_actions, d);
  if (st != Status::ok) return st;
  // Each arm is factored once into scratch and staged; the agent's arms
  // change only once every arm has passed.
  real* factor = arms.scratch();
  for (uint32_t arm_index = 0; arm_index < n_actions; ++arm_index) {
    if (!factor_arm(a + arm_index * per_arm, dim, form, factor)) {
      return Status::not_positive_definite;
    }
    stage_arm(arms, arm_index, factor, b + arm_index * d);
  }
  commit_staged_arms(arms);
  return Status::ok;
}

Status Agent::export_stats(double* a, double* b, uint32_t n_actions, uint32_t dim) const {
  if (a == nullptr || b == nullptr) return Status::null_pointer;
  const ArmSet& arms = AgentState::of(this).arms;
  if (n_actions != arms.count() || dim != arms.dim()) return Status::dimension_mismatch;
  const uint32_t d = dim;
  for (uint32_t arm_index = 0; arm_index < n_actions; ++arm_index) {
    const ArmView av = arms.arm(arm_index);
    double* out = a + static_cast<std::size_t>(arm_index) * d * d;
    // A = L L^T, accumulated in double.
    for (uint32_t j = 0; j < d; ++j) {
      for (uint32_t i = j; i < d; ++i) {
        double s = 0.0;
        for (uint32_t k = 0; k <= j; ++k) {
          s += static_cast<double>(av.L[k * d + i]) * static_cast<double>(av.L[k * d + j]);
        }
        out[j * d + i] = s;
        out[i * d + j] = s;
      }
    }
    for (uint32_t i = 0; i < d; ++i) b[arm_index * d + i] = static_cast<double>(av.b[i]);
  }
  return Status::ok;
}

}  // namespace p2b
