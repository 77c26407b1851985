// Triangular solves and the rank-1 Cholesky update on a column-major lower
// factor L (d x d), for any scalar type. The disjoint arms (ridge_arm.cpp,
// in `real`) and the shared-parameter model (shared_model.cpp, in float or
// double) run these same operations in the same order, so a change here
// moves both, and the golden digests catch it.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace p2b {

// z = L^-1 x (forward substitution, d^2/2 multiply-adds). The inner loop walks
// one contiguous column.
template <typename T>
void tri_whiten(const T* L, uint32_t d, const T* x, T* z) {
  for (uint32_t i = 0; i < d; ++i) z[i] = x[i];
  for (uint32_t j = 0; j < d; ++j) {
    const T* col = L + static_cast<std::size_t>(j) * d;
    z[j] /= col[j];
    const T zj = z[j];
    for (uint32_t i = j + 1; i < d; ++i) z[i] -= col[i] * zj;
  }
}

// tri_whiten for G right-hand sides at once, in place on z holding them
// interleaved (entry r of vector g at r * G + g). Each vector's result is bit
// for bit what tri_whiten gives it (the same operations in the same order);
// the G chains only interleave, so the CPU overlaps their latencies, the
// innermost loop runs over contiguous memory, and L is read once for all G.
template <typename T, uint32_t G>
void tri_whiten_interleaved(const T* L, uint32_t d, T* z) {
  for (uint32_t j = 0; j < d; ++j) {
    const T* col = L + static_cast<std::size_t>(j) * d;
    // A local copy: z's rows may alias as far as the compiler knows.
    T zj[G];
    for (uint32_t g = 0; g < G; ++g) {
      z[static_cast<std::size_t>(j) * G + g] /= col[j];
      zj[g] = z[static_cast<std::size_t>(j) * G + g];
    }
    for (uint32_t i = j + 1; i < d; ++i) {
      T* zi = z + static_cast<std::size_t>(i) * G;
      const T lij = col[i];
      for (uint32_t g = 0; g < G; ++g) zi[g] -= lij * zj[g];
    }
  }
}

// out = L^-T y (back substitution): row i of L^T is column i of L, so each
// step is a dot product over a contiguous column segment.
template <typename T>
void tri_unwhiten(const T* L, uint32_t d, const T* y, T* out) {
  for (uint32_t ii = d; ii-- > 0;) {
    const T* col = L + static_cast<std::size_t>(ii) * d;
    T s = y[ii];
    for (uint32_t k = ii + 1; k < d; ++k) s -= col[k] * out[k];
    out[ii] = s / col[ii];
  }
}

// The same three operations for a factor whose reciprocal diagonal
// inv_diag[j] = 1 / L_jj is kept beside it (the disjoint arms keep one, see
// ridge_arm.hpp): every division becomes a multiplication, which takes the
// division's latency off each solve's chain of dependent steps. The results
// differ from the dividing versions in the last bit, so the two families are
// never mixed on one factor.

// z = L^-1 x, scaling by the reciprocal diagonal.
template <typename T>
void tri_whiten_recip(const T* L, const T* inv_diag, uint32_t d, const T* x, T* z) {
  for (uint32_t i = 0; i < d; ++i) z[i] = x[i];
  for (uint32_t j = 0; j < d; ++j) {
    const T* col = L + static_cast<std::size_t>(j) * d;
    z[j] *= inv_diag[j];
    const T zj = z[j];
    for (uint32_t i = j + 1; i < d; ++i) z[i] -= col[i] * zj;
  }
}

// out = L^-T y, scaling by the reciprocal diagonal.
template <typename T>
void tri_unwhiten_recip(const T* L, const T* inv_diag, uint32_t d, const T* y, T* out) {
  for (uint32_t ii = d; ii-- > 0;) {
    const T* col = L + static_cast<std::size_t>(ii) * d;
    T s = y[ii];
    for (uint32_t k = ii + 1; k < d; ++k) s -= col[k] * out[k];
    out[ii] = s * inv_diag[ii];
  }
}

// L <- chol(L L^T + w w^T) as tri_rank1_update below, with one square root
// and one division per column and none per entry: the rotation's 1/c is
// L_kk / r, a product of the old diagonal and the new reciprocal. `w` is
// consumed, and because w[k] is dead once column k is done, it returns the
// new reciprocal diagonal in w (w[k] = 1 / new L_kk) at no extra space.
template <typename T>
void tri_rank1_update_recip(T* L, const T* inv_diag, uint32_t d, T* w) {
  for (uint32_t k = 0; k < d; ++k) {
    T* col = L + static_cast<std::size_t>(k) * d;
    const T lkk = col[k];
    const T inv_lkk = inv_diag[k];
    const T rr = std::sqrt(lkk * lkk + w[k] * w[k]);
    const T inv_rr = T(1) / rr;
    const T c = rr * inv_lkk;
    const T s = w[k] * inv_lkk;
    const T inv_c = lkk * inv_rr;
    col[k] = rr;
    for (uint32_t i = k + 1; i < d; ++i) {
      col[i] = (col[i] + s * w[i]) * inv_c;
      w[i] = c * w[i] - s * col[i];
    }
    w[k] = inv_rr;
  }
}

// L <- chol(L L^T + w w^T) in place by Givens-style rotations; `w` (d
// scalars) is consumed. LLT::rankUpdate would heap-allocate.
template <typename T>
void tri_rank1_update(T* L, uint32_t d, T* w) {
  for (uint32_t k = 0; k < d; ++k) {
    T* col = L + static_cast<std::size_t>(k) * d;
    const T lkk = col[k];
    const T rr = std::sqrt(lkk * lkk + w[k] * w[k]);
    const T c = rr / lkk;
    const T s = w[k] / lkk;
    col[k] = rr;
    for (uint32_t i = k + 1; i < d; ++i) {
      col[i] = (col[i] + s * w[i]) / c;
      w[i] = c * w[i] - s * col[i];
    }
  }
}

}  // namespace p2b
