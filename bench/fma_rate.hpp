// This CPU's multiply-add rate on one core, for the arithmetic floors the
// benchmarks print beside their times: 16 independent FMA chains, so the FMA
// units, not their latency, set the pace, at the widest ISA the CPU runs
// (taking the best, since some CPUs split or down-clock 512-bit operations).
#pragma once

#include <chrono>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace p2b::bench {

struct FmaRate {
  double madds_per_second;
  const char* isa;
};

namespace fma_detail {

constexpr long kIterations = 20'000'000;

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) inline double avx2() {
  __m256 acc[16];
  for (__m256& v : acc) v = _mm256_set1_ps(1.0F);
  const __m256 a = _mm256_set1_ps(0.999999F), b = _mm256_set1_ps(1e-7F);
  const auto t0 = std::chrono::steady_clock::now();
  for (long n = 0; n < kIterations; ++n) {
    for (__m256& v : acc) v = _mm256_fmadd_ps(v, a, b);
  }
  const double s = seconds_since(t0);
  // Every accumulator feeds the result, or the compiler drops the unused ones.
  __m256 total = acc[0];
  for (int i = 1; i < 16; ++i) total = _mm256_add_ps(total, acc[i]);
  float sink[8];
  _mm256_storeu_ps(sink, total);
  return sink[0] == 42.0F ? 0 : static_cast<double>(kIterations) * 16 * 8 / s;
}

__attribute__((target("avx512f"))) inline double avx512() {
  __m512 acc[16];
  for (__m512& v : acc) v = _mm512_set1_ps(1.0F);
  const __m512 a = _mm512_set1_ps(0.999999F), b = _mm512_set1_ps(1e-7F);
  const auto t0 = std::chrono::steady_clock::now();
  for (long n = 0; n < kIterations; ++n) {
    for (__m512& v : acc) v = _mm512_fmadd_ps(v, a, b);
  }
  const double s = seconds_since(t0);
  __m512 total = acc[0];
  for (int i = 1; i < 16; ++i) total = _mm512_add_ps(total, acc[i]);
  float sink[16];
  _mm512_storeu_ps(sink, total);
  return sink[0] == 42.0F ? 0 : static_cast<double>(kIterations) * 16 * 16 / s;
}
#endif

// Without a known vector ISA: separate multiply and add on 16 scalars.
inline double scalar() {
  volatile float a_in = 0.999999F, b_in = 1e-7F;
  const float a = a_in, b = b_in;
  float acc[16];
  for (float& v : acc) v = 1.0F;
  const auto t0 = std::chrono::steady_clock::now();
  for (long n = 0; n < kIterations / 4; ++n) {
    for (float& v : acc) v = v * a + b;
  }
  const double s = seconds_since(t0);
  float total = 0;
  for (float v : acc) total += v;
  return total == 42.0F ? 0 : static_cast<double>(kIterations / 4) * 16 / s;
}

}  // namespace fma_detail

inline FmaRate measure_fma_rate() {
  FmaRate best{fma_detail::scalar(), "scalar"};
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    const double r = fma_detail::avx2();
    if (r > best.madds_per_second) best = {r, "avx2+fma"};
  }
  if (__builtin_cpu_supports("avx512f")) {
    const double r = fma_detail::avx512();
    if (r > best.madds_per_second) best = {r, "avx512f"};
  }
#endif
  return best;
}

}  // namespace p2b::bench
