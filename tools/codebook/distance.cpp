#include "codebook/distance.hpp"

#include <algorithm>
#include <limits>

namespace p2b::codebook {

float squared_distance(const float* a, const float* b, uint32_t d) {
  float s = 0.0F;
  for (uint32_t j = 0; j < d; ++j) {
    const float diff = a[j] - b[j];
    s += diff * diff;
  }
  return s;
}

double squared_distance_exact(const float* a, const float* b, uint32_t d) {
  double s = 0.0;
  for (uint32_t j = 0; j < d; ++j) {
    const double diff = static_cast<double>(a[j]) - static_cast<double>(b[j]);
    s += diff * diff;
  }
  return s;
}

std::vector<float> transpose_centres(const std::vector<float>& c, uint32_t k, uint32_t d) {
  std::vector<float> t(c.size());
  for (uint32_t i = 0; i < k; ++i) {
    for (uint32_t j = 0; j < d; ++j) {
      t[static_cast<std::size_t>(j) * k + i] = c[static_cast<std::size_t>(i) * d + j];
    }
  }
  return t;
}

// Kernels are cloned for AVX2 where the CPU has it: the same operations in
// the same order, only wider, so both clones give identical bits.
#define P2B_KERNEL __attribute__((target_clones("avx2", "default")))

namespace {

constexpr std::size_t kLanes = 8;

// Minimum with explicit lanes (elementwise, so it vectorises without
// reassociating anything).
inline float lane_min(const float* v, uint32_t m) {
  float lane[kLanes];
  std::fill(lane, lane + kLanes, std::numeric_limits<float>::infinity());
  uint32_t i = 0;
  for (; i + kLanes <= m; i += kLanes) {
    for (std::size_t l = 0; l < kLanes; ++l) lane[l] = std::min(lane[l], v[i + l]);
  }
  float best = std::numeric_limits<float>::infinity();
  for (; i < m; ++i) best = std::min(best, v[i]);
  for (float x : lane) best = std::min(best, x);
  return best;
}

inline void block_distances(const float* soa, std::size_t width, uint32_t d, const float* x,
                            float* dd) {
  for (std::size_t i = 0; i < width; ++i) dd[i] = 0.0F;
  for (uint32_t j = 0; j < d; ++j, soa += width) {
    const float xj = x[j];
    for (std::size_t i = 0; i < width; ++i) {
      const float diff = soa[i] - xj;
      dd[i] += diff * diff;
    }
  }
}

}  // namespace

P2B_KERNEL float block_gain(const float* soa, std::size_t width, uint32_t d, const float* x,
                            const float* cur, float* scratch) {
  block_distances(soa, width, d, x, scratch);
  float lane[kLanes] = {};
  for (std::size_t i = 0; i < width; i += kLanes) {
    for (std::size_t l = 0; l < kLanes; ++l) {
      lane[l] += std::max(0.0F, cur[i + l] - scratch[i + l]);
    }
  }
  float g = 0.0F;
  for (float v : lane) g += v;
  return g;
}

P2B_KERNEL void block_lower(const float* soa, std::size_t width, uint32_t d, const float* x,
                            float* cur, float* scratch) {
  block_distances(soa, width, d, x, scratch);
  for (std::size_t i = 0; i < width; ++i) cur[i] = std::min(cur[i], scratch[i]);
}

P2B_KERNEL TwoNearest two_nearest(const float* x, const float* t, uint32_t d, std::size_t stride,
                                  uint32_t begin, uint32_t end, float* scratch) {
  const uint32_t m = end - begin;
  squared_distances(x, t, d, stride, begin, end, scratch);
  TwoNearest r{lane_min(scratch, m), std::numeric_limits<float>::infinity(), 0};
  while (scratch[r.i1] != r.d1) ++r.i1;
  scratch[r.i1] = std::numeric_limits<float>::infinity();
  r.d2 = lane_min(scratch, m);
  r.i1 += begin;
  return r;
}

P2B_KERNEL void squared_distances(const float* x, const float* t, uint32_t d, std::size_t stride,
                                  uint32_t begin, uint32_t end, float* out) {
  const uint32_t m = end - begin;
  for (uint32_t i = 0; i < m; ++i) out[i] = 0.0F;
  for (uint32_t j = 0; j < d; ++j) {
    const float xj = x[j];
    const float* row = t + j * stride + begin;
    for (uint32_t i = 0; i < m; ++i) {
      const float diff = xj - row[i];
      out[i] += diff * diff;
    }
  }
}

// The minimum by vector lanes, then the first centre reaching it: the same
// centre a serial strict-less scan picks (the lowest index among ties), but
// the compare no longer waits on the previous one.
P2B_KERNEL uint32_t nearest_centre(const float* x, const float* t, uint32_t d, uint32_t k,
                                   float* scratch, float* best_d2) {
  squared_distances(x, t, d, k, 0, k, scratch);
  const float least = lane_min(scratch, k);
  uint32_t best = 0;
  while (best + 1 < k && scratch[best] != least) ++best;
  *best_d2 = scratch[best];
  return best;
}

}  // namespace p2b::codebook
