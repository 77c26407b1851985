// Exact privacy of composed Gaussian mechanisms through Gaussian
// differential privacy (Dong, Roth & Su 2019): a Gaussian release with
// sensitivity D and noise sigma is mu-GDP with mu = D / sigma, composition
// adds mu^2, and a mu-GDP mechanism's (eps, delta) curve is the closed form
// below (Balle & Wang 2018, Thm. 8). No bound is loosened on the way.
#include <cmath>
#include <limits>

#include "p2b/cmab.hpp"

namespace p2b {

namespace {

double normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

// Beyond this e^eps overflows; no mechanism worth accounting gets there.
constexpr double kMaxEpsilon = 700.0;

}  // namespace

double gdp_delta(double mu, double eps) {
  if (!(mu > 0.0)) return 0.0;
  if (std::isinf(mu)) return 1.0;
  const double a = normal_cdf(-eps / mu + mu / 2.0);
  // e^eps * Phi(-b) as exp(eps + log Phi(-b)): the product of a huge and a
  // tiny factor stays finite.
  const double tail = normal_cdf(-eps / mu - mu / 2.0);
  const double b = tail > 0.0 ? std::exp(eps + std::log(tail)) : 0.0;
  const double d = a - b;
  return d > 0.0 ? d : 0.0;
}

double gdp_epsilon(double mu, double delta) {
  if (!(mu > 0.0)) return 0.0;
  if (std::isinf(mu) || !(delta > 0.0)) return std::numeric_limits<double>::infinity();
  if (gdp_delta(mu, 0.0) <= delta) return 0.0;
  double lo = 0.0;
  double hi = 1.0;
  while (gdp_delta(mu, hi) > delta) {
    lo = hi;
    hi *= 2.0;
    if (hi > kMaxEpsilon) return std::numeric_limits<double>::infinity();
  }
  // delta(eps) is decreasing in eps: bisect to 1e-12 relative.
  while (hi - lo > 1e-12 * hi) {
    const double mid = 0.5 * (lo + hi);
    if (gdp_delta(mu, mid) > delta) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return hi;
}

}  // namespace p2b
