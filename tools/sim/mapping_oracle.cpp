#include "mapping_oracle.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace p2b::sim {

MappingFigures mapping_figures(const Environment& env, uint64_t contexts, uint64_t seed) {
  const uint32_t k = env.n_actions();
  std::vector<float> x(env.dim());
  std::vector<double> p(k);
  std::vector<double> arm_sum(k, 0.0);
  Draws draws(seed);
  double sum = 0, sum_sq = 0, all_arms = 0;
  for (uint64_t i = 0; i < contexts; ++i) {
    env.step(0, static_cast<uint32_t>(i), draws, x.data(), p.data());
    const double best = p[env.best_action(x.data(), p.data())];
    sum += best;
    sum_sq += best * best;
    for (uint32_t a = 0; a < k; ++a) {
      arm_sum[a] += p[a];
      all_arms += p[a];
    }
  }
  MappingFigures f;
  if (contexts == 0) return f;
  const auto n = static_cast<double>(contexts);
  f.contexts = contexts;
  f.oracle = sum / n;
  f.oracle_se =
      contexts > 1 ? std::sqrt(std::max(0.0, sum_sq / n - f.oracle * f.oracle) / (n - 1)) : 0.0;
  f.best_arm_index =
      static_cast<uint32_t>(std::max_element(arm_sum.begin(), arm_sum.end()) - arm_sum.begin());
  f.best_arm = arm_sum[f.best_arm_index] / n;
  f.mean_arm = all_arms / (n * k);
  return f;
}

}  // namespace p2b::sim
