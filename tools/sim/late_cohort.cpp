#include "late_cohort.hpp"

#include <cmath>

namespace p2b::sim {

namespace {

void load_warm(const CAgent& agent, const CohortSpec& c, const Model& warm) {
  if (!warm.signed_bundle.empty()) {
    check(p2b_agent_apply_model(agent.get(), warm.signed_bundle.data(), warm.signed_bundle.size()),
          "apply signed model");
  } else {
    check(p2b_agent_import(agent.get(), warm.a.data(), warm.b.data(), c.actions, c.dim,
                           P2B_STATS_GRAM),
          "import");
  }
}

}  // namespace

Estimate evaluate_late(CAgent& agent, const SyntheticEnv& env, const CohortSpec& c,
                       const Model* warm, Late who) {
  std::vector<float> x(c.dim);
  std::vector<double> rbar(c.actions);
  double total = 0.0;
  for (uint32_t u = 0; u < c.users; ++u) {
    agent.reseed(c.seed * 1000003 + 500000 + u);
    if (warm != nullptr) load_warm(agent, c, *warm);
    Draws draws(c.seed * 7919 + u);
    for (uint32_t s = 0; s < c.window; ++s) {
      env.context(draws, x.data());
      env.expected_rewards(draws, x.data(), rbar.data());
      const double coin = draws.uniform();
      if (who == Late::oracle) {
        total += coin < rbar[env.best_action(x.data())] ? 1.0 : 0.0;
        continue;
      }
      uint32_t action = 0;
      uint64_t id = 0;
      check(p2b_agent_decide(agent.get(), x.data(), c.dim, &action, &id), "decide");
      const float r = coin < rbar[action] ? 1.0F : 0.0F;
      check(p2b_agent_reward(agent.get(), id, r), "reward");
      total += r;
    }
  }
  const double n = static_cast<double>(c.users) * c.window;
  const double mean = total / n;
  return {mean, std::sqrt(mean * (1.0 - mean) / n)};
}

}  // namespace p2b::sim
