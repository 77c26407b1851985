#include "pfcb_sim/pfcb_run.hpp"

#include <atomic>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include "cli/progress_reporter.hpp"
#include "parallel/parallel_for.hpp"
#include "pfcb/wire/pfcb_wire.hpp"
#include "pfcb_sim/run_table.hpp"
#include "pfcb_sim/world.hpp"

namespace p2b::pfcb_sim {

namespace {

InstanceSpec instance_spec(const Options& o, const Task& t) {
  InstanceSpec s;
  s.producers = o.producers;
  s.agents = t.agents;
  s.dist = t.dist;
  s.homogeneous = o.homogeneous;
  s.max_capacity = o.max_capacity;
  s.alpha = o.alpha;
  s.violation = o.violation;
  s.seed = o.run.seed;
  s.instance = t.instance;
  return s;
}

std::vector<Task> make_tasks(const Options& o) {
  std::vector<Task> tasks;
  for (Dist d : o.dists) {
    for (uint32_t n : o.agents_grid) {
      for (const std::string& a : o.algorithms) {
        std::vector<double> eps = o.epsilons;
        // nf and fcb do not depend on epsilon: once per (dist, n).
        if (a == "nf") eps = {0.0};
        if (a == "fcb") eps = {std::numeric_limits<double>::infinity()};
        for (double e : eps) {
          for (uint32_t i = 0; i < o.instances; ++i) {
            for (uint32_t r = 0; r < o.run.seeds; ++r) tasks.push_back({a, d, n, e, i, r});
          }
        }
      }
    }
  }
  return tasks;
}

// The release rounds of a schedule, by the library's own schedule functions
// (the budget may stop releases earlier; the ledger says how many happened).
std::string schedule_text(const Options& o, CmabSchedule s) {
  std::string out;
  uint64_t tau = cmab_first_tau(s, o.team.window_start);
  uint32_t shown = 0;
  for (uint64_t t = o.team.window_start; t <= o.rounds && t <= o.team.window_stop && shown <= 12;
       ++t) {
    if (!cmab_is_release_round(t, o.team.window_start, o.team.window_stop, tau)) continue;
    out += (shown == 0 ? "" : ",") + (shown < 12 ? std::to_string(t) : std::string("..."));
    ++shown;
    tau = cmab_next_tau(s, tau);
  }
  const uint32_t count = cmab_release_count(s, o.team.window_start, o.team.window_stop, o.rounds);
  return std::to_string(count) + " releases: " + out;
}

void say_setting(const Options& o, size_t runs, const tools::RunHooks& hooks) {
  std::string agents;
  for (uint32_t n : o.agents_grid) agents += (agents.empty() ? "" : ",") + std::to_string(n);
  const TeamSpec& t = o.team;
  char line[512];
  std::snprintf(line, sizeof line,
                "pfcb: m=%u, n=%s, T=%llu, %s, alpha=%.2f, delta=%.3g, window [%llu, %llu], "
                "omega1=%g, omega2=%g, explore %u rounds, L=%s, log base %s; %u instances x %u "
                "runs, %zu runs in all",
                o.producers, agents.c_str(), static_cast<unsigned long long>(o.rounds),
                o.homogeneous ? "homogeneous" : "heterogeneous", o.alpha, t.delta,
                static_cast<unsigned long long>(t.window_start),
                static_cast<unsigned long long>(t.window_stop), t.omega1, t.omega2,
                t.explore_rounds, o.violation == ViolationCost::optimum ? "r(s*)" : "max regret",
                t.log_base == CmabLogBase::two ? "2" : "e", o.instances, o.run.seeds, runs);
  hooks.say(line);
  hooks.say("schedule paper: " + schedule_text(o, CmabSchedule::paper));
  hooks.say("schedule aligned: " + schedule_text(o, CmabSchedule::aligned));
  std::snprintf(
      line, sizeof line, "wire: share body %zu B, posting %zu B at m=%u (pfcb::posting_wire_size)",
      cmab_share_encoded_size(o.producers), pfcb::posting_wire_size(o.producers), o.producers);
  hooks.say(line);
}

}  // namespace

std::vector<RunResult> run_all(const Options& o, const tools::RunHooks& hooks) {
  if (const std::string why = validate(o); !why.empty()) throw std::invalid_argument(why);
  const std::vector<Task> tasks = make_tasks(o);
  say_setting(o, tasks.size(), hooks);
  uint64_t total = 0;
  for (const Task& t : tasks) total += o.rounds * t.agents;
  std::vector<RunResult> results(tasks.size());
  std::atomic<uint64_t> done{0};
  tools::ProgressReporter reporter(hooks, "pfcb agent-rounds", total, done);
  tools::parallel_for(tasks.size(), o.run.threads, [&](std::size_t i) {
    const World world(instance_spec(o, tasks[i]));
    results[i] = run_one(o, tasks[i], world, &done);
  });
  reporter.stop(true);
  return results;
}

tools::ResultTables run(const Options& o, const tools::RunHooks& hooks) {
  return result_tables(o, run_all(o, hooks));
}

}  // namespace p2b::pfcb_sim
