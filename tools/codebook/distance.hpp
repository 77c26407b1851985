// Squared Euclidean distances in float, the trainer's inner loop. Centres are
// kept transposed (dim-major, t[j * stride + c]) so one point's distances to a
// run of centres vectorise over the centres. Each distance is summed over the
// dimensions in order with no fused multiply-add, so a value never depends on
// the vector width, the run it was computed in, or the thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace p2b::codebook {

float squared_distance(const float* a, const float* b, uint32_t d);
double squared_distance_exact(const float* a, const float* b, uint32_t d);  // in double

// c (k x d, row-major) -> dim-major copy with stride k.
std::vector<float> transpose_centres(const std::vector<float>& c, uint32_t k, uint32_t d);

// out[i] = |x - centre(begin + i)|^2 for centres [begin, end) of `t`.
void squared_distances(const float* x, const float* t, uint32_t d, std::size_t stride,
                       uint32_t begin, uint32_t end, float* out);

// Smallest and second smallest of |x - centre|^2 over centres [begin, end),
// and the first centre reaching the smallest. `scratch` holds end - begin.
struct TwoNearest {
  float d1, d2;
  uint32_t i1;
};
TwoNearest two_nearest(const float* x, const float* t, uint32_t d, std::size_t stride,
                       uint32_t begin, uint32_t end, float* scratch);

// Seeding kernels over a block of `width` points stored dim-major (soa[j *
// width + i]), `width` a multiple of 8, with `cur` their current squared
// distances: how much a seed at x would lower them in total (float lanes in
// a fixed order), and lowering them to it.
float block_gain(const float* soa, std::size_t width, uint32_t d, const float* x, const float* cur,
                 float* scratch);
void block_lower(const float* soa, std::size_t width, uint32_t d, const float* x, float* cur,
                 float* scratch);

// Nearest centre (ties to the lower index) by a full scan; `scratch` holds k.
uint32_t nearest_centre(const float* x, const float* t, uint32_t d, uint32_t k, float* scratch,
                        float* best_d2);

}  // namespace p2b::codebook
