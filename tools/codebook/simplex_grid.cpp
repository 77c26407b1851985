#include "codebook/simplex_grid.hpp"

#include <algorithm>
#include <limits>

#include "codebook/parallel.hpp"

namespace p2b::codebook {

namespace {

uint32_t units_for(uint32_t q) {
  uint32_t units = 1;
  for (uint32_t i = 0; i < q; ++i) units *= 10;
  return units;
}

}  // namespace

uint64_t grid_point_count(uint32_t d, uint32_t q) {
  if (d == 0) return 0;
  // C(units + d - 1, d - 1) as a running product; each step is exact because
  // C(m + i, i) is an integer.
  const uint64_t units = units_for(q);
  unsigned __int128 v = 1;
  for (uint64_t i = 1; i < d; ++i) {
    v = v * (units + i) / i;
    if (v > std::numeric_limits<uint64_t>::max()) return std::numeric_limits<uint64_t>::max();
  }
  return static_cast<uint64_t>(v);
}

std::vector<float> enumerate_grid(uint32_t d, uint32_t q) {
  const uint32_t units = units_for(q);
  const float inv = 1.0F / static_cast<float>(units);
  std::vector<float> out;
  out.reserve(static_cast<std::size_t>(grid_point_count(d, q)) * d);
  // Odometer over compositions: part[0..d-2] free, the last takes the rest.
  std::vector<uint32_t> part(d, 0);
  part[d - 1] = units;
  for (;;) {
    for (uint32_t v : part) out.push_back(static_cast<float>(v) * inv);
    if (d == 1) break;
    // Advance the rightmost free part that can still grow.
    int i = static_cast<int>(d) - 2;
    while (i >= 0 && part[d - 1] == 0) {
      part[d - 1] += part[i];
      part[i] = 0;
      --i;
    }
    if (i < 0) break;
    ++part[i];
    --part[d - 1];
  }
  return out;
}

void sample_grid_point(uint32_t d, uint32_t q, Rng& rng, uint32_t* scratch, float* out) {
  const uint32_t units = units_for(q);
  const uint32_t slots = units + d - 1;
  const uint32_t bars = d - 1;
  uint32_t taken = 0;
  for (uint32_t j = slots - bars; j < slots; ++j) {
    const auto t = static_cast<uint32_t>(rng.below(uint64_t{j} + 1));
    const bool seen = std::find(scratch, scratch + taken, t) != scratch + taken;
    scratch[taken++] = seen ? j : t;
  }
  std::sort(scratch, scratch + taken);
  const float inv = 1.0F / static_cast<float>(units);
  uint32_t prev = 0;  // first slot after the previous bar
  for (uint32_t i = 0; i < bars; ++i) {
    out[i] = static_cast<float>(scratch[i] - prev) * inv;
    prev = scratch[i] + 1;
  }
  out[bars] = static_cast<float>(slots - prev) * inv;
}

std::vector<float> sample_grid(uint32_t d, uint32_t q, std::size_t n, uint64_t seed,
                               unsigned threads) {
  std::vector<float> out(n * d);
  parallel_for(chunk_count(n), threads, [&](std::size_t c) {
    Rng rng(seed, kStreamSample, c);
    std::vector<uint32_t> scratch(d);
    const std::size_t end = std::min(n, (c + 1) * kChunk);
    for (std::size_t p = c * kChunk; p < end; ++p) {
      sample_grid_point(d, q, rng, scratch.data(), &out[p * d]);
    }
  });
  return out;
}

}  // namespace p2b::codebook
