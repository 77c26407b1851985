// Zero-concentrated differential privacy (Bun and Steinke 2016) for the
// central-DP release (central_dp.hpp): the Gaussian mechanism's cost and
// its conversion to (epsilon, delta).
//   A Gaussian of L2 sensitivity D and standard deviation s is
//   rho = D^2 / (2 s^2)-zCDP; costs of mechanisms on the same data add; and
//   rho-zCDP implies (rho + 2 sqrt(rho ln(1/delta)), delta)-DP.
#pragma once

#include <cstdint>

namespace p2b::dp {

// The epsilon that rho-zCDP gives at `delta`, in (0, 1).
double zcdp_epsilon(double rho, double delta);
// The largest rho whose zcdp_epsilon(rho, delta) is `epsilon` (> 0): the
// positive root of rho + 2 sqrt(rho L) = epsilon, L = ln(1/delta).
double zcdp_rho(double epsilon, double delta);
// The standard deviation per coordinate that makes `compositions` Gaussian
// releases of L2 sensitivity `sensitivity` cost `epsilon` at `delta` in
// total: s = sensitivity * sqrt(compositions / (2 rho)).
double gaussian_sigma(double epsilon, double delta, double sensitivity, uint32_t compositions);

}  // namespace p2b::dp
