#include "arm_lanes.hpp"

#include <cmath>

namespace p2b {

namespace {

// Offset of entry (i, j), i >= j, in a lane's packed lower triangle.
std::size_t packed_index(uint32_t d, uint32_t i, uint32_t j) {
  const std::size_t jj = j;
  return jj * d - jj * (jj - 1) / 2 + (i - j);
}

}  // namespace

void lanes_store_arm(const real* L, const real* inv_diag, const real* zb, uint32_t d, real* group,
                     uint32_t lane) {
  for (uint32_t j = 0; j < d; ++j) {
    const real* col = L + static_cast<std::size_t>(j) * d;
    group[packed_index(d, j, j) * kArmLanes + lane] = inv_diag[j];
    for (uint32_t i = j + 1; i < d; ++i) {
      group[packed_index(d, i, j) * kArmLanes + lane] = col[i];
    }
  }
  real* zbs = group + lower_entries(d) * kArmLanes;
  for (uint32_t i = 0; i < d; ++i) zbs[static_cast<std::size_t>(i) * kArmLanes + lane] = zb[i];
}

void lanes_store_spare(uint32_t d, real* group, uint32_t lane) {
  for (uint32_t j = 0; j < d; ++j) {
    for (uint32_t i = j; i < d; ++i) {
      group[packed_index(d, i, j) * kArmLanes + lane] = i == j ? real(1) : real(0);
    }
  }
  real* zbs = group + lower_entries(d) * kArmLanes;
  for (uint32_t i = 0; i < d; ++i) zbs[static_cast<std::size_t>(i) * kArmLanes + lane] = real(0);
}

// Every loop over `g` below is one lane-wise vector operation: the compiler
// may run it as SSE2/NEON instructions or as four scalar ones, with the same
// bits either way (-ffp-contract=off keeps a multiply and a subtract from
// fusing into an FMA on one target and not on another).
void lanes_mean_width(const real* group, uint32_t d, const real* x, real* mean, real* width) {
  constexpr uint32_t n = kArmLanes;
  real z[kMaxDim][n];
  for (uint32_t i = 0; i < d; ++i) {
    for (uint32_t g = 0; g < n; ++g) z[i][g] = x[i];
  }
  // Forward substitution z = L^-1 x down the packed columns, which are read
  // once, in order.
  const real* p = group;
  for (uint32_t j = 0; j < d; ++j) {
    real zj[n];
    for (uint32_t g = 0; g < n; ++g) {
      zj[g] = z[j][g] * p[g];
      z[j][g] = zj[g];
    }
    p += n;
    for (uint32_t i = j + 1; i < d; ++i, p += n) {
      for (uint32_t g = 0; g < n; ++g) z[i][g] -= p[g] * zj[g];
    }
  }
  // Sums run from entry 0 up in every lane, as scalar code would run them.
  real sq[n];
  real dot[n];
  const real* zb = group + lower_entries(d) * n;
  for (uint32_t g = 0; g < n; ++g) {
    sq[g] = z[0][g] * z[0][g];
    dot[g] = zb[g] * z[0][g];
  }
  for (uint32_t i = 1; i < d; ++i) {
    const real* zbi = zb + static_cast<std::size_t>(i) * n;
    for (uint32_t g = 0; g < n; ++g) {
      sq[g] += z[i][g] * z[i][g];
      dot[g] += zbi[g] * z[i][g];
    }
  }
  for (uint32_t g = 0; g < n; ++g) {
    mean[g] = dot[g];
    width[g] = std::sqrt(sq[g]);
  }
}

}  // namespace p2b
