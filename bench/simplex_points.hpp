// Benchmark inputs: points uniform on the probability simplex, from a seeded
// generator, so every run times the same contexts and codebooks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace p2b::bench {

// n points in R^d, row-major. Normalised i.i.d. Exp(1) draws are
// Dirichlet(1, ..., 1), which is that distribution.
inline std::vector<float> simplex_points(std::size_t n, uint32_t d, std::mt19937_64& gen) {
  std::exponential_distribution<double> expo(1.0);
  std::vector<float> points(n * d);
  std::vector<double> row(d);
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0.0;
    for (double& v : row) sum += (v = expo(gen));
    for (uint32_t j = 0; j < d; ++j) points[i * d + j] = static_cast<float>(row[j] / sum);
  }
  return points;
}

}  // namespace p2b::bench
