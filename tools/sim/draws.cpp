#include "draws.hpp"

#include <cmath>

namespace p2b::sim {
namespace {

double density(double x) {
  return std::exp(-0.5 * x * x);
}  // unnormalised

ZigguratLayers make_layers() {
  ZigguratLayers z{};
  constexpr double r = ZigguratLayers::kTailStart;
  constexpr double v = ZigguratLayers::kLayerArea;
  // Each layer's rectangle has area v: x[i] * (f(x[i+1]) - f(x[i])) = v.
  z.x[0] = v / density(r);
  z.x[1] = r;
  for (int i = 1; i < ZigguratLayers::kLayers - 1; ++i) {
    z.x[i + 1] = std::sqrt(-2.0 * std::log(v / z.x[i] + density(z.x[i])));
  }
  z.x[ZigguratLayers::kLayers] = 0.0;
  for (int i = 0; i <= ZigguratLayers::kLayers; ++i) z.f[i] = density(z.x[i]);
  return z;
}

}  // namespace

const ZigguratLayers& ziggurat_layers() {
  static const ZigguratLayers layers = make_layers();
  return layers;
}

bool Draws::edge_or_reject(unsigned layer, double x, double* out) {
  if (layer == 0) {
    // Marsaglia's tail method: exact for x > r, never rejects as a whole.
    constexpr double r = ZigguratLayers::kTailStart;
    double a = 0, b = 0;
    do {
      a = -std::log(1.0 - uniform()) / r;
      b = -std::log(1.0 - uniform());
    } while (b + b < a * a);
    *out = r + a;
    return true;
  }
  // A point under the layer, right of the next layer's edge: kept when it
  // falls under the curve.
  const double y = zig_->f[layer] + uniform() * (zig_->f[layer + 1] - zig_->f[layer]);
  *out = x;
  return y < density(x);
}

}  // namespace p2b::sim
