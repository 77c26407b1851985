#include "audit/participation_delta.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace p2b::audit {

namespace {

// P(Bin(n, p) = k) for k = 0..n, in log space so large n stays finite.
std::vector<double> binomial_pmf(std::size_t n, double p) {
  std::vector<double> pmf(n + 1);
  const double lp = std::log(p);
  const double lq = std::log1p(-p);
  const auto nd = static_cast<double>(n);
  for (std::size_t k = 0; k <= n; ++k) {
    const auto kd = static_cast<double>(k);
    pmf[k] = std::exp(std::lgamma(nd + 1) - std::lgamma(kd + 1) - std::lgamma(nd - kd + 1) +
                      kd * lp + (nd - kd) * lq);
  }
  return pmf;
}

// The hockey-stick divergence of the thresholded count, both directions.
double crowd_delta(std::size_t others, double p, std::size_t threshold, double e_eps) {
  const std::vector<double> without = binomial_pmf(others, p);
  const std::vector<double> with = binomial_pmf(others + 1, p);
  double forward = 0.0;   // with against without
  double backward = 0.0;  // without against with
  double kept_without = 0.0;
  double kept_with = 0.0;
  for (std::size_t k = threshold; k <= others + 1; ++k) {
    const double w0 = k <= others ? without[k] : 0.0;
    const double w1 = with[k];
    kept_without += w0;
    kept_with += w1;
    forward += std::max(0.0, w1 - e_eps * w0);
    backward += std::max(0.0, w0 - e_eps * w1);
  }
  // Every count below the threshold is one outcome: nothing released.
  forward += std::max(0.0, (1.0 - kept_with) - e_eps * (1.0 - kept_without));
  backward += std::max(0.0, (1.0 - kept_without) - e_eps * (1.0 - kept_with));
  return std::max(forward, backward);
}

}  // namespace

double participation_delta(double p, std::size_t threshold, double epsilon, std::size_t max_crowd) {
  const double e_eps = std::exp(epsilon);
  double worst = 0.0;
  for (std::size_t n = 0; n <= max_crowd; ++n) {
    worst = std::max(worst, crowd_delta(n, p, threshold, e_eps));
  }
  return worst;
}

}  // namespace p2b::audit
