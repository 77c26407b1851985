// The environments of a compare run: per environment one public codebook and
// one world per seed, so every protocol meets the same users and coins.
#include <cmath>
#include <stdexcept>
#include <string>

#include "compare_sim/run_parts.hpp"
#include "sim/multilabel_env.hpp"
#include "sim/sim_options.hpp"
#include "sim/synthetic_env.hpp"

namespace p2b::compare_sim {
namespace {

// The SimOptions the P2B side's helpers read (codebook, multi-label set).
// No output directory: run() writes no files, codebooks stay in memory.
sim::SimOptions sim_options(const Options& o, uint64_t seed) {
  sim::SimOptions so;
  so.codes = o.codes;
  so.digits = 1;
  so.run.seed = seed;
  so.run.threads = o.run.threads;
  so.run.quiet = true;
  so.run.out = "";
  so.data = o.data;
  so.labels = o.labels;
  return so;
}

std::unique_ptr<sim::Environment> synthetic_environment(const Options& o, uint64_t seed) {
  sim::EnvParams ep;
  ep.dim = o.dim;
  ep.n_actions = o.actions;
  ep.beta = o.beta;
  ep.noise_variance = o.noise_sd * o.noise_sd;
  ep.seed = seed;
  ep.mapping = o.mapping == "linear" ? sim::Mapping::linear : sim::Mapping::softmax;
  return std::make_unique<sim::SyntheticEnvironment>(sim::SyntheticEnv(ep));
}

// The multi-label set, read once; its labels times --ml-dim must fit FCLUB's wire.
void load_multilabel(const Options& o, Setup* s) {
  s->multilabel = sim::load_multilabel_set(sim_options(o, o.run.seed), o.ml_dim);
  if (o.ml_dim * s->multilabel->n_labels > 64) {
    throw std::invalid_argument("--ml-dim = " + std::to_string(o.ml_dim) + ": times " +
                                std::to_string(s->multilabel->n_labels) +
                                " labels must be at most FCLUB's 64 wire dimensions");
  }
}

}  // namespace

std::unique_ptr<Setup> make_setup(const Options& o, const tools::RunHooks& hooks) {
  auto s = std::make_unique<Setup>();
  s->early = static_cast<uint64_t>(std::floor(o.users * o.early_fraction));
  // P2B's run_point derives the population from u and the fraction; every
  // protocol uses the same figure.
  s->population = static_cast<uint64_t>(static_cast<double>(s->early) / o.early_fraction);
  for (const std::string& env : o.envs) {
    if (env == "multilabel") load_multilabel(o, s.get());
    const uint32_t dim = env == "multilabel" ? o.ml_dim : o.dim;
    // One public codebook per environment, trained on the simplex: it does
    // not depend on the users, so every seed shares it.
    s->codebooks[env] = sim::codebook_for(sim_options(o, o.run.seed), dim, hooks);
    for (uint32_t i = 0; i < o.run.seeds; ++i) {
      Slot slot;
      slot.env = env;
      slot.seed = o.run.seed + i;
      slot.environment = env == "synthetic" ? synthetic_environment(o, slot.seed)
                                            : sim::make_multilabel_environment(
                                                  sim_options(o, slot.seed), o.interactions,
                                                  *s->multilabel, s->population);
      slot.world =
          World{slot.environment.get(), s->population, s->early, o.interactions, slot.seed};
      slot.codebook = &s->codebooks[env];
      s->slots.push_back(std::move(slot));
    }
  }
  return s;
}

}  // namespace p2b::compare_sim
