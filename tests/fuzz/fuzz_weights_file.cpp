// p2b::data::parse_weights (.npy, .npz: stored and deflated, CSV) and
// parse_weights_pair on untrusted bytes. The first byte picks the mode (bit
// 0): 0 the payload is one file; 1 the next two bytes (little-endian) are the
// length of the W file, the rest after it is the b file. Bits 1-2 pick the
// layout (auto, actions-by-dim, dim-by-actions), bits 3-5 and 6-7 the
// expected |A| and d (0: any), so orientation detection is fuzzed too. A
// WeightsError is fine; an accepted file must give finite weights of the
// shape it claims, and the shape the caller expected.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "data/weights_file.hpp"

namespace {

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
    std::abort();
  }
}

p2b::data::WeightsLimits limits() {
  p2b::data::WeightsLimits l;
  l.max_file_bytes = 1 << 16;  // also bounds what a zip may inflate to
  l.max_values = 4096;
  return l;
}

void check(const p2b::data::Weights& w, const p2b::data::WeightsShape& expected) {
  require(!expected.n_actions || w.n_actions == expected.n_actions, "unexpected |A| accepted");
  require(!expected.dim || w.dim == expected.dim, "unexpected d accepted");
  require(w.n_actions > 0 && w.dim > 0, "empty weights accepted");
  require(w.w.size() == w.n_actions * w.dim, "W size");
  require(w.b.size() == w.n_actions, "b size");
  for (double v : w.w) require(std::isfinite(v), "non-finite W");
  for (double v : w.b) require(std::isfinite(v), "non-finite b");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace p2b::data;
  if (size < 1) return 0;
  const uint8_t mode = data[0] & 1;
  const int layout_bits = (data[0] >> 1) & 3;
  WeightsShape shape;
  shape.layout = layout_bits == 1   ? WeightsLayout::actions_by_dim
                 : layout_bits == 2 ? WeightsLayout::dim_by_actions
                                    : WeightsLayout::auto_detect;
  shape.n_actions = (data[0] >> 3) & 7;
  shape.dim = (data[0] >> 6) & 3;
  const uint8_t* p = data + 1;
  size_t n = size - 1;
  try {
    if (mode == 0) {
      check(parse_weights(p, n, "fuzz", shape, limits()), shape);
    } else {
      if (n < 2) return 0;
      size_t w_len = p[0] | static_cast<size_t>(p[1]) << 8;
      p += 2;
      n -= 2;
      if (w_len > n) w_len = n;
      check(parse_weights_pair(p, w_len, "fuzz-W", p + w_len, n - w_len, "fuzz-b", shape, limits()),
            shape);
    }
  } catch (const WeightsError&) {
  }
  return 0;
}
