#include "ridge_arm.hpp"

#include <cmath>

#include "arm_lanes.hpp"
#include "eigen_config.hpp"
#include "triangular.hpp"

namespace p2b {

namespace {

using Vec = Eigen::Matrix<real, Eigen::Dynamic, 1>;
using VecMap = Eigen::Map<Vec>;

inline real& at(real* m, uint32_t d, uint32_t row, uint32_t col) {
  return m[col * d + row];
}

// zb from the arm's factor, b and reciprocal diagonal, then the lane copy,
// which needs zb.
void whiten_b_and_store_lane(ArmView arm) {
  arm_whiten(arm, arm.b, arm.zb);
  lanes_store_arm(arm.L, arm.inv_diag, arm.zb, arm.d, arm.lanes, arm.lane);
}

}  // namespace

void arm_reset(ArmView arm, real lambda) {
  const uint32_t d = arm.d;
  const real diag = static_cast<real>(std::sqrt(static_cast<double>(lambda)));
  for (uint32_t i = 0; i < d * d; ++i) arm.L[i] = real(0);
  for (uint32_t i = 0; i < d; ++i) {
    at(arm.L, d, i, i) = diag;
    arm.inv_diag[i] = real(1) / diag;
  }
  VecMap(arm.b, d).setZero();
  VecMap(arm.zb, d).setZero();
  lanes_store_arm(arm.L, arm.inv_diag, arm.zb, d, arm.lanes, arm.lane);
}

void arm_whiten(ArmView arm, const real* x, real* z) {
  tri_whiten_recip(arm.L, arm.inv_diag, arm.d, x, z);
}

void arm_unwhiten(ArmView arm, const real* y, real* out) {
  tri_unwhiten_recip(arm.L, arm.inv_diag, arm.d, y, out);
}

// Staging holds the new factor's lower triangle, then b + r x, then w, which
// the update turns into the new reciprocal diagonal.
bool arm_stage_update(ArmView arm, const real* x, real r, real* staging) {
  const uint32_t d = arm.d;
  const std::size_t dd = static_cast<std::size_t>(d) * d;
  real* l2 = staging;
  real* b2 = staging + dd;
  real* w = b2 + d;
  for (uint32_t j = 0; j < d; ++j) {
    const std::size_t col = static_cast<std::size_t>(j) * d;
    for (uint32_t i = j; i < d; ++i) l2[col + i] = arm.L[col + i];
  }
  for (uint32_t i = 0; i < d; ++i) {
    b2[i] = arm.b[i] + r * x[i];
    w[i] = x[i];
  }
  tri_rank1_update_recip(l2, arm.inv_diag, d, w);
  // The result must stay inside the bounds restore accepts, or the agent
  // would save a state it can never load again.
  for (uint32_t j = 0; j < d; ++j) {
    for (uint32_t i = j; i < d; ++i) {
      if (!factor_entry_ok(static_cast<double>(l2[static_cast<std::size_t>(j) * d + i]), i == j)) {
        return false;
      }
    }
    if (!vector_entry_ok(static_cast<double>(b2[j]))) return false;
  }
  return true;
}

void arm_commit_update(ArmView arm, real* staging) {
  const uint32_t d = arm.d;
  const std::size_t dd = static_cast<std::size_t>(d) * d;
  // Only the lower triangle was staged; the upper one stays zero.
  for (uint32_t j = 0; j < d; ++j) {
    const std::size_t col = static_cast<std::size_t>(j) * d;
    for (uint32_t i = j; i < d; ++i) arm.L[col + i] = staging[col + i];
  }
  for (uint32_t i = 0; i < d; ++i) {
    arm.b[i] = staging[dd + i];
    arm.inv_diag[i] = staging[dd + d + i];
  }
  whiten_b_and_store_lane(arm);
}

void arm_refresh_theta(ArmView arm, real* /*work*/) {
  // 1 / L_jj is what the rank-1 update stages too, so a restored arm holds
  // the same bits as the arm that was saved.
  for (uint32_t j = 0; j < arm.d; ++j) {
    arm.inv_diag[j] = real(1) / arm.L[static_cast<std::size_t>(j) * arm.d + j];
  }
  whiten_b_and_store_lane(arm);
}

bool cholesky_factor(const double* a, uint32_t d, real* out) {
  for (uint32_t j = 0; j < d; ++j) {
    for (uint32_t i = 0; i < d; ++i) {
      const double aij = a[j * d + i];
      const double aji = a[i * d + j];
      if (!std::isfinite(aij)) return false;
      const double scale = std::fabs(aij) + std::fabs(aji);
      if (std::fabs(aij - aji) > 1e-9 * scale) return false;
    }
  }
  // Left-looking Cholesky accumulating in double: import is rare, so the extra
  // precision costs nothing that matters.
  for (uint32_t j = 0; j < d; ++j) {
    if (!cholesky_column(a + static_cast<std::size_t>(j) * d + j, j, d, out)) return false;
  }
  return true;
}

}  // namespace p2b
