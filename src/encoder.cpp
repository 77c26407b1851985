#include "encoder.hpp"

#include <cmath>

namespace p2b {

Status check_context(const float* x, uint32_t d) {
  // All of one kind of fault is reported before any of the next, so the
  // status does not depend on where in the vector the faults sit.
  for (uint32_t i = 0; i < d; ++i) {
    if (!std::isfinite(x[i])) return Status::non_finite;
  }
  for (uint32_t i = 0; i < d; ++i) {
    if (x[i] < 0.0F) return Status::negative_context;
  }
  return Status::ok;
}

void normalise_context(const float* x, uint32_t d, real* out) {
  double sum = 0.0;
  for (uint32_t i = 0; i < d; ++i) sum += static_cast<double>(x[i]);
  // A sum that overflows double cannot happen for finite floats and d <= 64.
  if (!(sum > 0.0)) {
    for (uint32_t i = 0; i < d; ++i) out[i] = static_cast<real>(1.0 / d);
    return;
  }
  for (uint32_t i = 0; i < d; ++i) out[i] = static_cast<real>(static_cast<double>(x[i]) / sum);
}

void round_to_units(const real* xn, uint32_t d, uint32_t units, uint32_t* out) {
  double frac[kMaxDim];
  double total = 0.0;
  for (uint32_t i = 0; i < d; ++i) total += static_cast<double>(xn[i]);
  int64_t assigned = 0;
  for (uint32_t i = 0; i < d; ++i) {
    // Re-normalising in double absorbs the float rounding of xn, so the
    // deficit below is in [0, d) as in exact arithmetic.
    const double scaled = static_cast<double>(xn[i]) / total * units;
    const double fl = std::floor(scaled);
    out[i] = static_cast<uint32_t>(fl);
    frac[i] = scaled - fl;
    assigned += static_cast<int64_t>(out[i]);
  }
  int64_t deficit = static_cast<int64_t>(units) - assigned;
  // Hand the missing units to the largest remainders, one each.
  while (deficit > 0) {
    uint32_t best = 0;
    for (uint32_t i = 1; i < d; ++i) {
      if (frac[i] > frac[best]) best = i;
    }
    out[best] += 1;
    frac[best] = -1.0;  // at most one extra unit per entry
    --deficit;
  }
  // Rounding noise can leave one unit too many; take it from the entry that
  // was rounded up the least.
  while (deficit < 0) {
    uint32_t best = d;
    for (uint32_t i = 0; i < d; ++i) {
      if (out[i] > 0 && (best == d || frac[i] < frac[best])) best = i;
    }
    out[best] -= 1;
    frac[best] = 2.0;
    ++deficit;
  }
}

uint32_t nearest_code(const uint32_t* units_vec, uint32_t d, uint32_t units, const float* centroids,
                      uint32_t k) {
  float point[kMaxDim];
  const float inv = 1.0F / static_cast<float>(units);
  for (uint32_t i = 0; i < d; ++i) point[i] = static_cast<float>(units_vec[i]) * inv;
  uint32_t best = 0;
  float best_dist = INFINITY;
  for (uint32_t c = 0; c < k; ++c) {
    const float* row = centroids + static_cast<std::size_t>(c) * d;
    float dist = 0.0F;
    for (uint32_t i = 0; i < d; ++i) {
      const float diff = point[i] - row[i];
      dist += diff * diff;
    }
    if (dist < best_dist) {
      best_dist = dist;
      best = c;
    }
  }
  return best;
}

uint32_t pow10_u32(uint32_t q) {
  uint32_t v = 1;
  for (uint32_t i = 0; i < q; ++i) v *= 10;
  return v;
}

}  // namespace p2b
