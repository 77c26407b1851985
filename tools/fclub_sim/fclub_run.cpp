#include "fclub_sim/fclub_run.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include "cli/progress_reporter.hpp"
#include "fclub/federation.hpp"
#include "fclub/wire/fclub_wire.hpp"
#include "fclub_sim/make_learner.hpp"
#include "fclub_sim/world.hpp"
#include "parallel/parallel_for.hpp"

namespace p2b::fclub_sim {

namespace {

struct Task {
  std::string name;
  uint32_t dim;
  double epsilon;
  uint64_t seed;
};

WorldSpec world_spec(const Options& o, uint32_t dim, uint64_t seed) {
  WorldSpec ws;
  ws.dim = dim;
  ws.users = o.users;
  ws.clusters = o.clusters;
  ws.servers = o.servers;
  ws.items = o.items;
  ws.shuffle_users = o.layout == "shuffled";
  ws.thetas_file = o.thetas;
  ws.seed = seed;
  return ws;
}

// T rounds of one algorithm on one seed's world; `done` counts rounds.
RunResult run_one(const Options& o, const Task& task, std::atomic<uint64_t>* done) {
  const World world(world_spec(o, task.dim, task.seed));
  std::unique_ptr<Learner> learner =
      make_learner(o, task.name, world, task.dim, task.epsilon, task.seed);
  RunResult r;
  r.algorithm = task.name;
  r.dim = task.dim;
  r.epsilon = task.name == "cdp-fclub-dc" ? task.epsilon : 0.0;
  r.seed = task.seed;
  Round round;
  double regret = 0.0;
  const auto start = std::chrono::steady_clock::now();
  for (uint64_t t = 1; t <= o.rounds; ++t) {
    if (const uint32_t s = fclub::Federation::phase_starting_at(t)) learner->start_phase(s);
    world.draw(t, &round);
    const uint32_t k = learner->recommend(round.user, round.items);
    const Eigen::VectorXd x = round.items.row(k).transpose();
    const double mean = world.expected(round.user, x);
    regret += world.best(round.user, round.items) - mean;
    learner->observe(round.user, x, round.coin < mean ? 1.0 : 0.0);
    if (t % o.every == 0 || t == o.rounds) r.curve.emplace_back(t, regret);
    if ((t & 1023) == 0) done->fetch_add(1024, std::memory_order_relaxed);
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.regret = regret;
  r.us_per_round = 1e6 * secs / static_cast<double>(o.rounds);
  r.comm = learner->comm();
  // What those messages weigh on the wire: P2BU and P2BD have one sealed
  // length per d (docs/formats.md).
  r.bytes = r.comm.uploads * fclub::upload_wire_size(task.dim) +
            r.comm.downloads * fclub::download_wire_size(task.dim);
  r.clusters = learner->clusters();
  r.epsilon_spent = learner->epsilon();
  r.distinct_thetas = world.distinct_thetas();
  return r;
}

std::vector<Task> make_tasks(const Options& o) {
  std::vector<Task> tasks;
  for (uint32_t d : o.dims) {
    for (double e : o.epsilons) {
      for (const std::string& a : algorithms_to_run(o)) {
        // Only the private algorithm depends on epsilon: others run once per d.
        if (a != "cdp-fclub-dc" && e != o.epsilons.front()) continue;
        for (uint32_t s = 0; s < o.run.seeds; ++s) tasks.push_back({a, d, e, o.run.seed + s});
      }
    }
  }
  return tasks;
}

// The setting in two lines; reading --thetas here fails early on bad data.
void say_setting(const Options& o, size_t runs, const tools::RunHooks& hooks) {
  const World probe(world_spec(o, o.dims.front(), 0));
  char line[256];
  std::snprintf(line, sizeof line,
                "fclub %s mode: %u users on %u servers, %u distinct theta, K=%u, T=%llu, %u "
                "seeds, %zu runs",
                o.mode.c_str(), o.users, o.servers, probe.distinct_thetas(), o.items,
                static_cast<unsigned long long>(o.rounds), o.run.seeds, runs);
  hooks.say(line);
  std::snprintf(line, sizeof line, "wire: P2BU %zu B, P2BD %zu B at d=%u",
                fclub::upload_wire_size(o.dims.front()), fclub::download_wire_size(o.dims.front()),
                o.dims.front());
  hooks.say(line);
}

}  // namespace

std::vector<RunResult> run_all(const Options& o, const tools::RunHooks& hooks) {
  if (const std::string why = validate(o); !why.empty()) throw std::invalid_argument(why);
  const std::vector<Task> tasks = make_tasks(o);
  say_setting(o, tasks.size(), hooks);
  std::vector<RunResult> results(tasks.size());
  std::atomic<uint64_t> done{0};
  tools::ProgressReporter reporter(hooks, "fclub runs", o.rounds * tasks.size(), done);
  tools::parallel_for(tasks.size(), o.run.threads,
                      [&](std::size_t i) { results[i] = run_one(o, tasks[i], &done); });
  reporter.stop(true);
  return results;
}

tools::ResultTables run(const Options& o, const tools::RunHooks& hooks) {
  return result_tables(o, run_all(o, hooks));
}

}  // namespace p2b::fclub_sim
