// The one environment and schedule every protocol of p2b-sim --protocol
// compare runs on.
//
// Schedule (protocol-neutral): N users in two cohorts, early (users 0..E-1)
// then late (E..N-1). Within a cohort the users take turns: step s of every
// user, then step s + 1 (round-robin), T_u steps each. Protocols that share
// continuously (FCLUB, P-FCB-style, pooled) see exactly this order; P2B's
// early users report during their T_u steps and its analyzer releases one
// model between the cohorts, which late users apply at arrival (P2B's own
// protocol; reordering within a cohort changes nothing for it, as no user
// hears from another inside a cohort).
//
// Common random numbers: user u's contexts, reward probabilities and reward
// coins come from one stream, mix_seed(seed, 1, u), consumed step by step
// exactly as tools/sim/experiment's play_user consumes it, so every protocol
// (and P2B's own run_point) meets the same contexts and the same coins.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/environment.hpp"
#include "sim/seeds.hpp"

namespace p2b::compare_sim {

constexpr uint64_t kUserDrawsStream = 1;  // experiment.cpp's kUserDraws

struct World {
  const sim::Environment* env = nullptr;
  uint64_t users = 0;  // N
  uint64_t early = 0;  // E
  uint32_t steps = 0;  // T_u
  uint64_t seed = 1;
};

// One user's stream of steps.
class UserSteps {
 public:
  UserSteps(const World& w, uint64_t user)
      : w_(&w),
        user_(user),
        draws_(sim::mix_seed(w.seed, kUserDrawsStream, user)),
        x_(w.env->dim()),
        p_(w.env->n_actions()) {}
  // Draws step `s`'s context and probabilities, then its reward coin.
  void next(uint32_t s) {
    w_->env->step(user_, s, draws_, x_.data(), p_.data());
    coin_ = draws_.uniform();
  }
  const float* x() const { return x_.data(); }
  double p(uint32_t a) const { return p_[a]; }
  float reward(uint32_t a) const { return coin_ < p_[a] ? 1.0F : 0.0F; }

 private:
  const World* w_;
  uint64_t user_;
  sim::Draws draws_;
  std::vector<float> x_;
  std::vector<double> p_;
  double coin_ = 0.0;
};

// Calls body(user, step) in the schedule's order.
template <typename Body>
void for_each_step(const World& w, Body&& body) {
  const uint64_t bounds[3] = {0, w.early, w.users};
  for (int cohort = 0; cohort < 2; ++cohort) {
    for (uint32_t s = 0; s < w.steps; ++s) {
      for (uint64_t u = bounds[cohort]; u < bounds[cohort + 1]; ++u) body(u, s);
    }
  }
}

// Per-user reward sums, reduced to the two figures every row reports.
struct Rewards {
  std::vector<double> sum;  // by user
  explicit Rewards(uint64_t users) : sum(users, 0.0) {}
  double mean_all(const World& w) const { return mean(w, 0, w.users); }
  double mean_late(const World& w) const { return mean(w, w.early, w.users); }

 private:
  double mean(const World& w, uint64_t from, uint64_t to) const {
    double t = 0;
    for (uint64_t u = from; u < to; ++u) t += sum[u];
    return to > from ? t / (static_cast<double>(to - from) * w.steps) : 0.0;
  }
};

}  // namespace p2b::compare_sim
