#include "audit/clopper_pearson.hpp"

#include <cmath>
#include <limits>

namespace p2b::audit {

namespace {

// The continued fraction of I_x(a, b) (modified Lentz), which converges fast
// for x < (a + 1) / (a + b + 2); the other side goes through symmetry.
double beta_continued_fraction(double x, double a, double b) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-15;
  double c = 1.0;
  double d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1.0) < kEps) break;
  }
  return h;
}

// Bisection on a function increasing in p on [0, 1]: the p where it reaches
// `target`. 100 halvings reach the resolution of a double.
template <typename F>
double solve_increasing(F f, double target) {
  double lo = 0.0;
  double hi = 1.0;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (f(mid) < target) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return 0.5 * (lo + hi);
}

}  // namespace

double regularized_beta(double x, double a, double b) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  if (x < (a + 1.0) / (a + b + 2.0)) {
    return std::exp(log_front) * beta_continued_fraction(x, a, b) / a;
  }
  return 1.0 - std::exp(log_front) * beta_continued_fraction(1.0 - x, b, a) / b;
}

// P(Bin(n, p) >= k) = I_p(k, n - k + 1) for 1 <= k <= n: increasing in p.
double clopper_pearson_upper(uint64_t k, uint64_t n, double alpha) {
  if (k >= n) return 1.0;
  // P(Bin(n, p) <= k) = alpha / 2  <=>  P(Bin(n, p) >= k + 1) = 1 - alpha / 2.
  const auto a = static_cast<double>(k + 1);
  const auto b = static_cast<double>(n - k);
  return solve_increasing([a, b](double p) { return regularized_beta(p, a, b); },
                          1.0 - alpha / 2.0);
}

double clopper_pearson_lower(uint64_t k, uint64_t n, double alpha) {
  if (k == 0) return 0.0;
  const auto a = static_cast<double>(k);
  const auto b = static_cast<double>(n - k + 1);
  return solve_increasing([a, b](double p) { return regularized_beta(p, a, b); }, alpha / 2.0);
}

}  // namespace p2b::audit
