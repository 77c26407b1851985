// What the FCLUB algorithm tests share: a tree seed of one repeated byte,
// and items drawn as the synthetic world draws them.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <cstdint>
#include <random>

#include "fclub/tree_privatizer.hpp"

namespace p2b::fclub::test_support {

inline TreeSeed seed_of(uint8_t v) {
  TreeSeed s{};
  s.fill(v);
  return s;
}

// x = [g/||g||/sqrt2, 1/sqrt2], as the synthetic world draws items.
inline Eigen::VectorXd item(std::mt19937_64& rng, uint32_t d) {
  std::normal_distribution<double> n;
  Eigen::VectorXd x(d);
  for (uint32_t i = 0; i + 1 < d; ++i) x(i) = n(rng);
  x.head(d - 1) /= x.head(d - 1).norm() * std::sqrt(2.0);
  x(d - 1) = 1.0 / std::sqrt(2.0);
  return x;
}

}  // namespace p2b::fclub::test_support
