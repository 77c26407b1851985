// Portable random draws for the simulator, from xoshiro256++ (whose output
// its definition fixes; std::*_distribution is not fixed, so none is used):
// the same seed gives the same numbers on every platform and compiler, up to
// the last bits of libm's exp and log on the rare slow paths below.
#pragma once

#include <cstdint>

#include "xoshiro256.hpp"

namespace p2b::sim {

// The 256 equal-area layers of the ziggurat under exp(-x^2 / 2) (Marsaglia
// and Tsang, 2000): x[0] is the base layer's width (its rectangle plus the
// tail beyond x[1] = r), x[256] = 0; f[i] = exp(-x[i]^2 / 2).
struct ZigguratLayers {
  static constexpr int kLayers = 256;
  static constexpr double kTailStart = 3.6541528853610088;  // r
  static constexpr double kLayerArea = 4.92867323399e-3;    // v
  double x[kLayers + 1];
  double f[kLayers + 1];
};
const ZigguratLayers& ziggurat_layers();

class Draws {
 public:
  explicit Draws(uint64_t seed) : gen_(seed), zig_(&ziggurat_layers()) {}

  double uniform() { return static_cast<double>(gen_() >> 11) * 0x1.0p-53; }  // [0, 1)
  uint64_t bits() { return gen_(); }

  // N(0, 1) by the ziggurat: one 64-bit draw gives the layer (bits 0-7), the
  // sign (bit 8) and the position in the layer (bits 11-63), disjoint bits
  // so that they are independent (Doornik's fix of the 2000 paper). About
  // 99 % of draws end at the first comparison, with no log, exp or cos.
  double gaussian() {
    for (;;) {
      const uint64_t r = gen_();
      const unsigned layer = static_cast<unsigned>(r & 0xFFU);
      const bool negative = ((r >> 8) & 1U) != 0;
      const double x = static_cast<double>(r >> 11) * 0x1.0p-53 * zig_->x[layer];
      if (x < zig_->x[layer + 1]) return negative ? -x : x;
      double edge = 0;
      if (edge_or_reject(layer, x, &edge)) return negative ? -edge : edge;
    }
  }
  // n draws of gaussian(), in order, in one pass (the softmax environment's
  // noise for every arm of a step).
  void gaussians(double* out, uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) out[i] = gaussian();
  }

 private:
  // The slow ~1 %: the base layer's tail beyond r, or a wedge between a
  // layer's rectangle and the curve. False when the point is rejected.
  bool edge_or_reject(unsigned layer, double x, double* out);

  Xoshiro256 gen_;
  const ZigguratLayers* zig_;
};

}  // namespace p2b::sim
