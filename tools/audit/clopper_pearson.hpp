// Exact (Clopper-Pearson) confidence bounds on a binomial rate. The audit
// turns an attacker's error rates into a lower bound on epsilon, so the
// bound must hold whatever the sample size: no normal approximation.
#pragma once

#include <cstdint>

namespace p2b::audit {

// The regularized incomplete beta function I_x(a, b), a, b > 0, x in [0, 1].
double regularized_beta(double x, double a, double b);

// The upper end of the two-sided (1 - alpha) Clopper-Pearson interval for
// `k` successes in `n` trials: the p with P(Bin(n, p) <= k) = alpha / 2
// (1 when k == n). n >= 1, k <= n.
double clopper_pearson_upper(uint64_t k, uint64_t n, double alpha);
// The lower end: the p with P(Bin(n, p) >= k) = alpha / 2 (0 when k == 0).
double clopper_pearson_lower(uint64_t k, uint64_t n, double alpha);

}  // namespace p2b::audit
