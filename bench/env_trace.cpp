// The paper's synthetic environment (tools/sim, Eq. 4) as a trace that
// Python peers replay (bench/peers/sim_peers.py: Vowpal Wabbit), and p2b's
// own LinUCB agent run on the same trace, so that every learner meets the
// same users, contexts and reward draws.
//
// The users are p2b-sim's late users at its defaults (--users 10000, early
// fraction 0.7: users 10000..14284), each drawn as p2b-sim's play_user draws
// them: one std::mt19937_64 stream per user (mix_seed(seed, 1, user)), and per
// interaction the context, every arm's reward probability, then one uniform
// "coin" (the reward of arm a is coin < rbar[a]). p2b-sim keeps that order in
// tools/sim/experiment.cpp; if it changes there, this trace still gives every
// learner here the same draws, but the p2b per-user row then stops matching
// p2b-sim's cold row digit for digit.
//
//   env_trace --out DIR [--early-users 10000] [--interactions 10] [--seed 1]
//             [--dim 10] [--actions 10]
// writes DIR/meta.txt ("users t d K first_user seed"), x.f32 (users*t*d),
// rbar.f64 (users*t*K), coin.f64 (users*t) and best.u32 (users*t: the arm
// best in expectation, p2b-sim's oracle pick), then prints one line per run:
//   sim p2b <per-user|central> <reward> <stderr> <rbar_of_chosen> <us_per_interaction>
// (the time: median of five passes).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/c_agent.hpp"
#include "sim/environment.hpp"
#include "sim/seeds.hpp"

namespace {

using p2b::sim::check;

// p2b-sim's stream numbers (tools/sim/experiment.cpp): the users' draws and
// the late cold agents' seeds.
constexpr uint64_t kUserDraws = 1;
constexpr uint64_t kLateRng = 5;
constexpr uint64_t kChunkUsers = 1024;  // p2b-sim reseeds its late agents per chunk

struct Trace {
  uint64_t users = 0, first = 0;
  uint32_t t = 0, d = 0, k = 0;
  std::vector<float> x;
  std::vector<double> rbar, coin;
  std::vector<uint32_t> best;
};

Trace draw_trace(const p2b::sim::Environment& env, uint64_t first, uint64_t users, uint32_t t,
                 uint64_t seed) {
  Trace tr{users, first, t, env.dim(), env.n_actions(), {}, {}, {}, {}};
  const uint64_t steps = users * t;
  tr.x.resize(steps * tr.d);
  tr.rbar.resize(steps * tr.k);
  tr.coin.resize(steps);
  tr.best.resize(steps);
  for (uint64_t u = 0; u < users; ++u) {
    p2b::sim::Draws draws(p2b::sim::mix_seed(seed, kUserDraws, first + u));
    for (uint32_t s = 0; s < t; ++s) {
      const uint64_t i = u * t + s;
      float* x = &tr.x[i * tr.d];
      double* p = &tr.rbar[i * tr.k];
      env.step(first + u, s, draws, x, p);
      tr.coin[i] = draws.uniform();
      tr.best[i] = env.best_action(x, p);
    }
  }
  return tr;
}

template <typename T>
void write_array(const std::string& path, const std::vector<T>& v) {
  FILE* f = std::fopen(path.c_str(), "wb");
  const bool ok = f != nullptr && std::fwrite(v.data(), sizeof(T), v.size(), f) == v.size();
  if (f != nullptr && std::fclose(f) != 0) throw std::runtime_error("cannot close " + path);
  if (!ok) throw std::runtime_error("cannot write " + path);
}

void write_trace(const Trace& tr, const std::string& dir, uint64_t seed) {
  FILE* meta = std::fopen((dir + "/meta.txt").c_str(), "w");
  if (meta == nullptr) throw std::runtime_error("cannot write " + dir + "/meta.txt");
  std::fprintf(meta, "%llu %u %u %u %llu %llu\n", static_cast<unsigned long long>(tr.users), tr.t,
               tr.d, tr.k, static_cast<unsigned long long>(tr.first),
               static_cast<unsigned long long>(seed));
  std::fclose(meta);
  write_array(dir + "/x.f32", tr.x);
  write_array(dir + "/rbar.f64", tr.rbar);
  write_array(dir + "/coin.f64", tr.coin);
  write_array(dir + "/best.u32", tr.best);
}

// A late device as p2b-sim configures it (device_config with a one-code
// codebook): the reporting knobs do not change its decisions, but they do
// draw from its seeded generator, which also breaks score ties.
p2b_config late_device(const Trace& tr, const std::vector<float>& flat, double alpha) {
  static const uint8_t kPublicKey[32] = {9};  // never used: late devices do not seal
  static const uint8_t kVerifyKey[32] = {7};
  p2b_config cfg;
  check(p2b_config_default(&cfg), "config");
  cfg.dim = tr.d;
  cfg.n_actions = tr.k;
  cfg.alpha = alpha;
  cfg.round_digits = 1;
  cfg.window = tr.t;
  cfg.participation = 0.5;
  cfg.neg_rate = 0.05;
  cfg.centroids = flat.data();
  cfg.n_codes = 1;
  cfg.rng_mode = P2B_RNG_SEEDED;
  cfg.shuffler_public_key = kPublicKey;
  cfg.analyzer_public_key = kPublicKey;
  cfg.analyzer_verify_key = kVerifyKey;
  return cfg;
}

struct Pass {
  double mean = 0, se = 0, rbar = 0;  // per-user mean reward, its stderr, mean rbar played
  double seconds = 0;
};

// Per-user: a fresh agent per user (forget), reseeded per chunk of 1024 users
// as p2b-sim's cold row does. Central: one agent over every user in turn.
Pass play_pass(const Trace& tr, uint64_t seed, double alpha, bool central) {
  const std::vector<float> flat(tr.d, 1.0F / static_cast<float>(tr.d));
  p2b_config cfg = late_device(tr, flat, alpha);
  cfg.seed = p2b::sim::mix_seed(seed, kLateRng, 0);
  p2b::sim::CAgent agent(cfg);
  double sum = 0, sum_sq = 0, rbar_sum = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t u = 0; u < tr.users; ++u) {
    if (!central && u % kChunkUsers == 0) {
      agent.reseed(p2b::sim::mix_seed(seed, kLateRng, u / kChunkUsers));
    }
    if (!central) check(p2b_agent_forget(agent.get()), "forget");
    double user_sum = 0;
    for (uint32_t s = 0; s < tr.t; ++s) {
      const uint64_t i = u * tr.t + s;
      uint32_t a = 0;
      uint64_t id = 0;
      check(p2b_agent_decide(agent.get(), &tr.x[i * tr.d], tr.d, &a, &id), "decide");
      const double p = tr.rbar[i * tr.k + a];
      const float r = tr.coin[i] < p ? 1.0F : 0.0F;
      check(p2b_agent_reward(agent.get(), id, r), "reward");
      user_sum += r;
      rbar_sum += p;
    }
    const double m = user_sum / tr.t;
    sum += m;
    sum_sq += m * m;
  }
  Pass out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double n = static_cast<double>(tr.users);
  out.mean = sum / n;
  out.se = std::sqrt(std::max(0.0, sum_sq / n - out.mean * out.mean) / (n - 1));
  out.rbar = rbar_sum / (n * tr.t);
  return out;
}

// A pass takes tens of milliseconds, so on a loaded machine one pass's time
// is mostly the scheduler's: the median of five is printed. The passes are
// seeded alike, so their rewards must agree exactly.
void run_p2b(const Trace& tr, uint64_t seed, double alpha, bool central) {
  constexpr int kPasses = 5;
  std::vector<double> seconds;
  Pass first;
  for (int i = 0; i < kPasses; ++i) {
    const Pass p = play_pass(tr, seed, alpha, central);
    if (i == 0) first = p;
    if (p.mean != first.mean || p.rbar != first.rbar) {
      throw std::logic_error("two passes of one seeded agent over one trace differ");
    }
    seconds.push_back(p.seconds);
  }
  std::sort(seconds.begin(), seconds.end());
  const double steps = static_cast<double>(tr.users) * tr.t;
  std::printf("sim p2b %s %.6f %.6f %.6f %.4f\n", central ? "central" : "per-user", first.mean,
              first.se, first.rbar, seconds[kPasses / 2] * 1e6 / steps);
}

int run(int argc, char** argv) {
  CLI::App app("The paper's synthetic environment as a trace, and p2b's LinUCB on it", "env_trace");
  std::string out;
  uint64_t early_users = 10000, seed = 1;
  uint32_t t = 10, dim = 10, actions = 10;
  app.add_option("--out", out, "directory for the trace")->required();
  app.add_option("--early-users", early_users, "p2b-sim's --users: the late users follow them");
  app.add_option("--interactions", t, "t, per user")->check(CLI::Range(1U, 1000U));
  app.add_option("--seed", seed, "p2b-sim's --seed");
  app.add_option("--dim", dim, "d")->check(CLI::Range(1U, 64U));
  app.add_option("--actions", actions, "|A|")->check(CLI::Range(2U, 1024U));
  CLI11_PARSE(app, argc, argv);
  // p2b-sim's default mode: softmax mapping (Eq. 4), beta 0.1, noise sd
  // 0.001, contexts uniform on the simplex; W and b from the run's seed.
  p2b::sim::EnvParams ep;
  ep.dim = dim;
  ep.n_actions = actions;
  ep.noise_variance = p2b::sim::kReferenceNoiseVariance;
  ep.seed = seed;
  const p2b::sim::SyntheticEnvironment env{p2b::sim::SyntheticEnv(ep)};
  // p2b-sim's population is u / 0.7; the late users are the rest.
  const auto population = static_cast<uint64_t>(static_cast<double>(early_users) / 0.7);
  if (population - early_users < 2)
    throw std::invalid_argument("--early-users: too few late users");
  const Trace tr = draw_trace(env, early_users, population - early_users, t, seed);
  write_trace(tr, out, seed);
  std::printf("env softmax d=%u K=%u t=%u users %llu..%llu seed %llu\n", dim, actions, t,
              static_cast<unsigned long long>(early_users),
              static_cast<unsigned long long>(population - 1),
              static_cast<unsigned long long>(seed));
  run_p2b(tr, seed, 1.0, false);
  run_p2b(tr, seed, 1.0, true);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "env_trace: %s\n", e.what());
    return 1;
  }
}
