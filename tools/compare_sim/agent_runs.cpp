// Local-only, pooled and P2B: the three protocols whose learner is the
// device library itself (the C API agent), so that they differ only in what
// they share.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "compare_sim/privacy_spend.hpp"
#include "compare_sim/protocols.hpp"
#include "p2b.h"
#include "sim/c_agent.hpp"
#include "sim/deployment.hpp"
#include "sim/experiment.hpp"

namespace p2b::compare_sim {

namespace {

constexpr uint64_t kAgentStream = 40;  // clear of experiment.cpp's streams

// A device agent that never needs its codebook (it reports nothing anyone
// reads): one flat code, as experiment.cpp's late devices carry.
struct DeviceAgent {
  std::vector<float> flat;
  sim::Deployment dep;
  p2b_config cfg{};
  DeviceAgent(const Options& o, const World& w, uint64_t seed)
      : flat(w.env->dim(), 1.0F / static_cast<float>(w.env->dim())) {
    sim::check(p2b_config_default(&cfg), "config");
    cfg.dim = w.env->dim();
    cfg.n_actions = w.env->n_actions();
    cfg.alpha = o.alpha;
    cfg.window = w.steps;
    cfg.centroids = flat.data();
    cfg.n_codes = 1;
    cfg.rng_mode = P2B_RNG_SEEDED;
    cfg.seed = seed;
    dep.configure(&cfg);
  }
};

// One step on `agent`: decide, observe the coin, learn. Returns the reward.
float play(p2b_agent* agent, const World& w, UserSteps& st, uint32_t s) {
  st.next(s);
  uint32_t a = 0;
  uint64_t id = 0;
  sim::check(p2b_agent_decide(agent, st.x(), w.env->dim(), &a, &id), "decide");
  const float r = st.reward(a);
  sim::check(p2b_agent_reward(agent, id, r), "reward");
  return r;
}

}  // namespace

Outcome run_local(const Options& o, const World& w) {
  Outcome out;
  out.protocol = "local";
  DeviceAgent dev(o, w, sim::mix_seed(w.seed, kAgentStream, 0));
  sim::CAgent agent(dev.cfg);
  Rewards rw(w.users);
  // Users learn alone, so the interleaving of the schedule cannot matter:
  // each is run start to end on a forgotten agent. The agent breaks exact
  // ties from a rotation its decision counter drives, which forget keeps and
  // init resets; re-initialising at run_point's chunk starts (every 1024
  // users of each cohort) makes local-only's late users P2B's cold late users
  // decision for decision, which the run checks.
  constexpr uint64_t kRunPointChunk = 1024;  // experiment.cpp's kChunkUsers
  double oracle = 0;
  std::vector<double> p(w.env->n_actions());
  for (uint64_t u = 0; u < w.users; ++u) {
    const uint64_t in_cohort = u < w.early ? u : u - w.early;
    if (in_cohort % kRunPointChunk == 0) agent.reset();
    sim::check(p2b_agent_forget(agent.get()), "forget");
    UserSteps st(w, u);
    for (uint32_t s = 0; s < w.steps; ++s) {
      rw.sum[u] += play(agent.get(), w, st, s);
      for (uint32_t a = 0; a < p.size(); ++a) p[a] = st.p(a);
      oracle += st.p(w.env->best_action(st.x(), p.data()));
    }
  }
  out.reward_all = rw.mean_all(w);
  out.reward_late = rw.mean_late(w);
  // The ceiling of every protocol: the action best in expectation, every step.
  out.check = oracle / (static_cast<double>(w.users) * w.steps);
  out.detail = out.check;
  return out;
}

Outcome run_pooled(const Options& o, const World& w) {
  Outcome out;
  out.protocol = "pooled";
  DeviceAgent dev(o, w, sim::mix_seed(w.seed, kAgentStream, 1));
  sim::CAgent agent(dev.cfg);  // one model for everybody: the central server's
  std::vector<UserSteps> steps;
  steps.reserve(w.users);
  for (uint64_t u = 0; u < w.users; ++u) steps.emplace_back(w, u);
  Rewards rw(w.users);
  for_each_step(w, [&](uint64_t u, uint32_t s) { rw.sum[u] += play(agent.get(), w, steps[u], s); });
  out.reward_all = rw.mean_all(w);
  out.reward_late = rw.mean_late(w);
  out.epsilon = out.user_epsilon = out.formula_epsilon = std::numeric_limits<double>::infinity();
  // Nominal: every interaction goes to the server as (x as floats, action,
  // reward) and every decision comes back as an action; no library format.
  out.msgs_up = out.msgs_down = w.steps;
  out.bytes_up = static_cast<double>(w.steps) * (4.0 * w.env->dim() + 8.0);
  out.bytes_down = static_cast<double>(w.steps) * 4.0;
  return out;
}

namespace {

sim::PointSpec p2b_spec(const Options& o, const World& w, double participation,
                        uint32_t threshold) {
  sim::PointSpec spec;
  spec.mode = sim::Mode::standard;
  spec.early_users = w.early;
  spec.early_fraction = o.early_fraction;
  spec.interactions = w.steps;
  spec.participation = participation;
  spec.alpha = o.alpha;
  spec.threshold = threshold;
  spec.crypto = true;
  spec.seed = w.seed;
  spec.threads = 1;  // the comparison runs its tasks side by side instead
  return spec;
}

sim::PointResult p2b_point(const sim::PointSpec& spec, const World& w,
                           const std::vector<float>& codebook, uint32_t n_codes) {
  sim::PointResult r = sim::run_point(spec, *w.env, codebook, n_codes);
  if (r.population != w.users) {
    throw std::logic_error("P2B's population (" + std::to_string(r.population) +
                           ") differs from the world's (" + std::to_string(w.users) + ")");
  }
  return r;
}

}  // namespace

Outcome run_p2b(const Options& o, const World& w, double participation,
                const std::vector<float>& codebook, uint32_t n_codes) {
  return run_p2b_at(o, w, participation, o.threshold, codebook, n_codes);
}

Outcome run_p2b_nonprivate(const Options& o, const World& w, const std::vector<float>& codebook,
                           uint32_t n_codes) {
  constexpr double kMostParticipation = 0.99;  // p < 1: the device refuses p = 1
  const sim::PointResult r = p2b_point(p2b_spec(o, w, kMostParticipation, 1), w, codebook, n_codes);
  Outcome out;
  out.protocol = "p2b";
  out.knob = std::numeric_limits<double>::infinity();
  out.reward_late = r.warm_nonprivate.mean;
  out.reward_all = (r.early.mean * static_cast<double>(w.early) +
                    r.warm_nonprivate.mean * static_cast<double>(r.late_users)) /
                   static_cast<double>(w.users);
  out.epsilon = out.user_epsilon = out.formula_epsilon = out.knob;
  out.check = r.cold.mean;
  return out;
}

Outcome run_p2b_at(const Options& o, const World& w, double participation, uint32_t threshold,
                   const std::vector<float>& codebook, uint32_t n_codes) {
  const sim::PointResult r =
      p2b_point(p2b_spec(o, w, participation, threshold), w, codebook, n_codes);
  Outcome out;
  out.protocol = "p2b";
  out.knob = participation;
  out.threshold = threshold;
  const auto late = static_cast<double>(r.late_users);
  const auto n = static_cast<double>(w.users);
  out.reward_late = r.warm_private.mean;
  out.reward_all = (r.early.mean * static_cast<double>(w.early) + r.warm_private.mean * late) / n;
  out.epsilon = r.epsilon_per_user;
  out.delta = r.delta_indicative;
  // The window is the whole horizon (T_u steps): at most one report per user.
  out.ledger_units = 1;
  out.user_epsilon = r.epsilon_per_user;
  out.user_delta = r.delta_indicative;
  out.formula_epsilon = p2b_user_spend(participation, threshold, 1).epsilon;
  p2b_config any{};
  sim::check(p2b_config_default(&any), "config");
  size_t envelope = 0;
  sim::check(p2b_envelope_size(&any, &envelope), "envelope size");
  out.msgs_up = static_cast<double>(r.reports) / n;
  out.bytes_up = static_cast<double>(r.reports * envelope) / n;
  // Every late device fetches the signed model once, if there is one.
  if (r.private_model) {
    out.msgs_down = late / n;
    out.bytes_down = late * static_cast<double>(r.model_bundle_bytes) / n;
  }
  out.detail = r.reports > 0 ? static_cast<double>(r.kept) / static_cast<double>(r.reports) : 0.0;
  out.check = r.cold.mean;
  return out;
}

}  // namespace p2b::compare_sim
