// What a simulated user meets at each interaction: a context and, for every
// action, the probability that it is rewarded. The reward itself is drawn by
// the experiment from the same random stream whatever the action, so every
// setting (cold, warm, private) sees the same users (common random numbers).
#pragma once

#include <cstdint>

#include "synthetic_env.hpp"

namespace p2b::sim {

class Environment {
 public:
  virtual ~Environment() = default;
  virtual uint32_t dim() const = 0;
  virtual uint32_t n_actions() const = 0;
  // Step `s` of user `user`: writes dim() context values (non-negative) and
  // n_actions() reward probabilities in [0, 1]. Draws only from `draws`.
  virtual void step(uint64_t user, uint32_t s, Draws& draws, float* x, double* p) const = 0;
  // The oracle's pick for that step: the action best in expectation. By
  // default the highest p; environments with per-step noise override it, so
  // the oracle does not foresee the noise.
  virtual uint32_t best_action(const float* /*x*/, const double* p) const {
    uint32_t best = 0;
    for (uint32_t a = 1; a < n_actions(); ++a) {
      if (p[a] > p[best]) best = a;
    }
    return best;
  }
  // step() then best_action(): one call, so that an environment which finds
  // the best action while drawing the step (the synthetic one, from its
  // logits) does not redo that work. Same draws, same values.
  virtual uint32_t step_and_best(uint64_t user, uint32_t s, Draws& draws, float* x,
                                 double* p) const {
    step(user, s, draws, x, p);
    return best_action(x, p);
  }
};

// Paper Eq. 4 (synthetic_env.hpp) as an Environment.
class SyntheticEnvironment final : public Environment {
 public:
  explicit SyntheticEnvironment(SyntheticEnv env) : env_(std::move(env)) {}
  uint32_t dim() const override { return env_.params().dim; }
  uint32_t n_actions() const override { return env_.params().n_actions; }
  void step(uint64_t /*user*/, uint32_t /*s*/, Draws& draws, float* x, double* p) const override {
    env_.context(draws, x);
    env_.expected_rewards(draws, x, p);
  }
  uint32_t best_action(const float* x, const double* /*p*/) const override {
    return env_.best_action(x);
  }
  uint32_t step_and_best(uint64_t /*user*/, uint32_t /*s*/, Draws& draws, float* x,
                         double* p) const override {
    env_.context(draws, x);
    return env_.rewards_and_best(draws, x, p);
  }

 private:
  SyntheticEnv env_;
};

}  // namespace p2b::sim
