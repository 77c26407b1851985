// Per-arm ridge-regression statistics kept as a Cholesky factor, so that every
// decision costs O(d^2) and no d^3 inverse is ever formed after init.
//   A = L L^T = lambda I + sum x x^T,   b = sum r x,   theta = A^-1 b.
// theta is kept whitened, as zb = L^-1 b (theta = L^-T zb): a decision
// needs z = L^-1 x anyway, and theta.x = zb.z, so an update costs one
// triangular solve instead of two.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "p2b/config.hpp"

namespace p2b {

// True when `v` converts to T without overflow: a double beyond FLT_MAX cast
// to float is undefined behaviour, so untrusted values are checked first.
template <typename T>
inline bool fits_scalar(double v) {
  return std::isfinite(v) && std::fabs(v) <= static_cast<double>(std::numeric_limits<T>::max());
}
inline bool fits_real(double v) {
  return fits_scalar<real>(v);
}

// Bounds on statistics that arrive from outside (import, signed models, saved
// state). Honest statistics stay far inside them: after n updates of
// normalised contexts |L| <= sqrt(lambda + n) and |b| <= n, and lambda >=
// 1e-6 keeps the diagonal >= 1e-3. Inside them every later float update stays
// finite, which a fuzzer showed is not true of merely finite values.
constexpr double kMaxFactorEntry = 1e15;
constexpr double kMinFactorDiagonal = 1e-4;
constexpr double kMaxVectorEntry = 1e30;

// Both checks judge the value as it will be stored, rounded to T: the same
// value must pass at import, at every update, and again at restore.
template <typename T>
inline bool factor_entry_ok_as(double v, bool diagonal) {
  if (!fits_scalar<T>(v)) return false;
  const double stored = static_cast<double>(static_cast<T>(v));
  return std::fabs(stored) <= kMaxFactorEntry && (!diagonal || stored >= kMinFactorDiagonal);
}
template <typename T>
inline bool vector_entry_ok_as(double v) {
  if (!fits_scalar<T>(v)) return false;
  return std::fabs(static_cast<double>(static_cast<T>(v))) <= kMaxVectorEntry;
}
inline bool factor_entry_ok(double v, bool diagonal) {
  return factor_entry_ok_as<real>(v, diagonal);
}
inline bool vector_entry_ok(double v) {
  return vector_entry_ok_as<real>(v);
}

struct ArmView {
  real* L;         // d x d, column-major, lower triangle used
  real* b;         // d
  real* zb;        // d: L^-1 b, derived from L and b
  real* inv_diag;  // d: 1 / L_jj, derived from L
  real* lanes;     // the lane group holding this arm's scoring copy (arm_lanes.hpp)
  uint32_t lane;   // its lane in that group
  uint32_t d;
};

// A = lambda I, b = 0, and the derived values to match.
void arm_reset(ArmView arm, real lambda);

// z = L^-1 x  (forward substitution, d^2/2 multiply-adds).
void arm_whiten(ArmView arm, const real* x, real* z);

// out = L^-T y  (back substitution, d^2/2 multiply-adds).
void arm_unwhiten(ArmView arm, const real* y, real* out);

// Computes A + x x^T and b + r x into `staging` (d*d + 2*d scalars) without
// touching the arm. Returns false, and the arm must stay as it is, if the
// result would leave the bounds above.
bool arm_stage_update(ArmView arm, const real* x, real r, real* staging);
// Copies a staged update into the arm and refreshes what derives from it.
void arm_commit_update(ArmView arm, real* staging);

// After L or b changed: the reciprocal diagonal from L, zb = L^-1 b, and
// the arm's lane copy. Whatever writes L or b directly (import, restore, a
// model) must call it. `work` is unused since zb is solved in place; it
// stays so that its callers need no change.
void arm_refresh_theta(ArmView arm, real* work);

// Column j of the lower Cholesky factor of A into `out` (d x d,
// column-major), from the entries of A on and below the diagonal of column j
// (`a_col`, rows j..d-1) and the factor's columns 0..j-1, accumulating in
// double. Left-looking, so a stream of A's columns (a signed model bundle)
// can be factored as it is read. Returns false unless the pivot is positive
// and every entry is within the bounds above as stored in T.
template <typename T>
bool cholesky_column(const double* a_col, uint32_t j, uint32_t d, T* out) {
  double diag = a_col[0];
  for (uint32_t k = 0; k < j; ++k) {
    const double ljk = out[k * d + j];
    diag -= ljk * ljk;
  }
  if (!(diag > 0.0)) return false;
  const double ljj = std::sqrt(diag);
  if (!factor_entry_ok_as<T>(ljj, true)) return false;
  out[j * d + j] = static_cast<T>(ljj);
  for (uint32_t i = j + 1; i < d; ++i) {
    double s = a_col[i - j];
    for (uint32_t k = 0; k < j; ++k) {
      s -= static_cast<double>(out[k * d + i]) * static_cast<double>(out[k * d + j]);
    }
    if (!factor_entry_ok_as<T>(s / ljj, false)) return false;
    out[j * d + i] = static_cast<T>(s / ljj);
  }
  for (uint32_t i = 0; i < j; ++i) out[j * d + i] = T(0);
  return true;
}

// Lower Cholesky factor of the symmetric matrix `a` (d x d, column-major,
// double) into `out`. Returns false, leaving `out` undefined, unless `a` is
// finite, symmetric to a relative 1e-9, positive definite, and its factor is
// within the bounds above.
bool cholesky_factor(const double* a, uint32_t d, real* out);

}  // namespace p2b
