#include "ridge_arm.hpp"

#include <cmath>

#include "eigen_config.hpp"
#include "triangular.hpp"

namespace p2b {

namespace {

using Vec = Eigen::Matrix<real, Eigen::Dynamic, 1>;
using ConstVecMap = Eigen::Map<const Vec>;
using VecMap = Eigen::Map<Vec>;

inline real& at(real* m, uint32_t d, uint32_t row, uint32_t col) {
  return m[col * d + row];
}

}  // namespace

void arm_reset(ArmView arm, real lambda) {
  const uint32_t d = arm.d;
  const real diag = static_cast<real>(std::sqrt(static_cast<double>(lambda)));
  for (uint32_t i = 0; i < d * d; ++i) arm.L[i] = real(0);
  for (uint32_t i = 0; i < d; ++i) at(arm.L, d, i, i) = diag;
  VecMap(arm.b, d).setZero();
  VecMap(arm.theta, d).setZero();
}

void arm_whiten(ArmView arm, const real* x, real* z) {
  tri_whiten(arm.L, arm.d, x, z);
}

void arm_unwhiten(ArmView arm, const real* y, real* out) {
  tri_unwhiten(arm.L, arm.d, y, out);
}

bool arm_stage_update(ArmView arm, const real* x, real r, real* staging) {
  const uint32_t d = arm.d;
  const std::size_t dd = static_cast<std::size_t>(d) * d;
  real* l2 = staging;
  real* b2 = staging + dd;
  real* w = b2 + d;
  for (std::size_t i = 0; i < dd; ++i) l2[i] = arm.L[i];
  for (uint32_t i = 0; i < d; ++i) {
    b2[i] = arm.b[i] + r * x[i];
    w[i] = x[i];
  }
  tri_rank1_update(l2, d, w);
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
  for (std::size_t i = 0; i < dd; ++i) arm.L[i] = staging[i];
  for (uint32_t i = 0; i < d; ++i) arm.b[i] = staging[dd + i];
  arm_refresh_theta(arm, staging + dd + d);
}

void arm_refresh_theta(ArmView arm, real* work) {
  arm_whiten(arm, arm.b, work);
  arm_unwhiten(arm, work, arm.theta);
}

void arm_mean_width(ArmView arm, const real* x, real* z, real* mean, real* width) {
  const uint32_t d = arm.d;
  arm_whiten(arm, x, z);
  *mean = ConstVecMap(arm.theta, d).dot(ConstVecMap(x, d));
  *width = std::sqrt(ConstVecMap(z, d).squaredNorm());
}

void arm_group_mean_width(const ArmView* arms, const real* x, real* mean, real* width) {
  constexpr uint32_t n = kArmGroup;
  const uint32_t d = arms[0].d;
  real z[n][kMaxDim];
  for (uint32_t g = 0; g < n; ++g) {
    for (uint32_t i = 0; i < d; ++i) z[g][i] = x[i];
  }
  for (uint32_t j = 0; j < d; ++j) {
    const real* col[n];
    real zj[n];
    for (uint32_t g = 0; g < n; ++g) {
      col[g] = arms[g].L + static_cast<std::size_t>(j) * d;
      z[g][j] /= col[g][j];
      zj[g] = z[g][j];
    }
    for (uint32_t i = j + 1; i < d; ++i) {
      for (uint32_t g = 0; g < n; ++g) z[g][i] -= col[g][i] * zj[g];
    }
  }
  for (uint32_t g = 0; g < n; ++g) {
    mean[g] = ConstVecMap(arms[g].theta, d).dot(ConstVecMap(x, d));
    width[g] = std::sqrt(ConstVecMap(z[g], d).squaredNorm());
  }
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
