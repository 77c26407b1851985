// p2b-sim --protocol vertical's regret runs: every policy x seed on its own
// world, central, federated and partial models on the same draws.
#include "vertical/run.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "p2b/config.hpp"
#include "parallel/parallel_for.hpp"
#include "vertical/jobs.hpp"
#include "vertical/world.hpp"

namespace p2b::vertical {
namespace {

std::unique_ptr<World> make_world(const Options& o, uint64_t seed) {
  if (o.env == "synthetic") return synthetic_world(o.dim, o.actions, o.partition, o.noise_sd, seed);
  std::string err;
  auto w = multilabel_world(o.data, o.labels, o.parties, o.components, seed, &err);
  if (!w) throw std::runtime_error(err);
  return w;
}

// A partial model holds whole parties' blocks: the first parties whose
// columns come closest to ratio * d. The active party alone always runs.
std::vector<uint32_t> partial_columns(const World& w, const std::vector<double>& ratios) {
  std::vector<uint32_t> boundaries;
  uint32_t acc = 0;
  for (std::size_t j = 0; j + 1 < w.partition().size(); ++j) {
    acc += w.partition()[j];
    boundaries.push_back(acc);
  }
  std::vector<uint32_t> cols{boundaries[0]};
  for (const double ratio : ratios) {
    const double want = ratio * w.dim();
    uint32_t best = boundaries[0];
    for (const uint32_t b : boundaries) {
      if (std::fabs(b - want) < std::fabs(best - want)) best = b;
    }
    if (std::find(cols.begin(), cols.end(), best) == cols.end()) cols.push_back(best);
  }
  return cols;
}

void describe(const World& w, const std::vector<uint32_t>& cols, const tools::RunHooks& hooks) {
  hooks.say("p2b-sim --protocol vertical: " + w.describe());
  std::string line = "  d = " + std::to_string(w.dim()) + ", K = " + std::to_string(w.items()) +
                     ", M = " + std::to_string(w.partition().size()) + " parties (blocks";
  for (const uint32_t b : w.partition()) line += " " + std::to_string(b);
  line += "), partial models on the first";
  for (const uint32_t c : cols) line += " " + std::to_string(c);
  hooks.say(line + " columns (" + std::to_string(cols[0]) + ": the active party alone)");
  hooks.say("  privacy: O3M obfuscates, it does not encrypt and gives no DP (epsilon = inf);");
  hooks.say("  see docs/vertical.md for what the active party can infer");
}

TrialSpec trial_spec(const Options& o, const Job& j, const std::vector<uint32_t>& cols) {
  TrialSpec spec;
  spec.policy = j.policy == "lints" ? Policy::lints : Policy::linucb;
  spec.beta = o.beta;
  spec.v = o.ts_scale;
  spec.tie = o.tie;
  spec.seed = j.seed;
  spec.rounds = o.rounds;
  spec.partial_columns = cols;
  spec.checkpoint_every = std::max<uint64_t>(1, o.rounds / 100);
  return spec;
}

// Runs every job on o.run.threads threads; the first failure is rethrown.
void run_jobs(const Options& o, const std::vector<uint32_t>& cols, const tools::RunHooks& hooks,
              std::vector<Job>* jobs) {
  std::mutex mu;  // the hooks and the failure, one worker at a time
  std::string failure;
  uint64_t done = 0;
  tools::parallel_for(jobs->size(), o.run.threads, [&](std::size_t i) {
    Job& j = (*jobs)[i];
    std::string err;
    try {
      auto world = make_world(o, j.seed);
      if (!run_trial(*world, trial_spec(o, j, cols), &j.result, &err) && err.empty()) {
        err = "trial failed";
      }
    } catch (const std::exception& e) {
      err = e.what();
    }
    const std::lock_guard<std::mutex> lock(mu);
    if (!err.empty() && failure.empty()) failure = err;
    hooks.report("vertical runs", ++done, jobs->size());
  });
  if (!failure.empty()) throw std::runtime_error(failure);
}

}  // namespace

tools::ResultTables run(const Options& o, const tools::RunHooks& hooks) {
  if (const std::string e = validate(o); !e.empty()) throw std::invalid_argument(e);
  if (o.cost) return run_cost_grid(o, hooks);
  const auto probe = make_world(o, o.run.seed);  // fails fast on a bad data set
  const std::vector<uint32_t> cols = partial_columns(*probe, o.partial);
  describe(*probe, cols, hooks);
  std::vector<Job> jobs;
  for (const std::string& p : o.policies) {
    for (uint32_t r = 0; r < o.run.seeds; ++r) jobs.push_back(Job{p, o.run.seed + r, {}});
  }
  run_jobs(o, cols, hooks, &jobs);
  for (const std::string& line : summary_lines(o, jobs)) hooks.say(line);
  return regret_tables(o, jobs);
}

}  // namespace p2b::vertical
