#include "dp/zcdp.hpp"

#include <cmath>

namespace p2b::dp {

double zcdp_epsilon(double rho, double delta) {
  return rho + 2.0 * std::sqrt(rho * std::log(1.0 / delta));
}

double zcdp_rho(double epsilon, double delta) {
  // sqrt(rho) = sqrt(L + epsilon) - sqrt(L); written as a quotient so a
  // small epsilon against a large L loses no digits.
  const double l = std::log(1.0 / delta);
  const double root = epsilon / (std::sqrt(l + epsilon) + std::sqrt(l));
  return root * root;
}

double gaussian_sigma(double epsilon, double delta, double sensitivity, uint32_t compositions) {
  return sensitivity *
         std::sqrt(static_cast<double>(compositions) / (2.0 * zcdp_rho(epsilon, delta)));
}

}  // namespace p2b::dp
