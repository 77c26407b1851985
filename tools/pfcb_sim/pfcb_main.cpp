#include "pfcb_sim/pfcb_main.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "parallel/parallel_for.hpp"
#include "pfcb/wire/pfcb_wire.hpp"
#include "pfcb_sim/options.hpp"
#include "pfcb_sim/run.hpp"
#include "pfcb_sim/run_table.hpp"
#include "pfcb_sim/world.hpp"
#include "proc/run_command.hpp"
#include "sim/plot_results.hpp"
#include "sim/progress.hpp"

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
  s.seed = o.seed;
  s.instance = t.instance;
  return s;
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

}  // namespace

int pfcb_main(int argc, char** argv) {
  Options o;
  if (const int st = parse_options(argc, argv, &o); st >= 0) return st;
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
            for (uint32_t r = 0; r < o.runs; ++r) tasks.push_back({a, d, n, e, i, r});
          }
        }
      }
    }
  }
  std::printf(
      "pfcb: m=%u, n=%s, T=%llu, %s, alpha=%.2f, delta=%.3g, window [%llu, %llu], omega1=%g, "
      "omega2=%g, explore %u rounds, L=%s, log base %s; %u instances x %u runs, %zu runs in all\n",
      o.producers,
      [&] {
        std::string s;
        for (uint32_t n : o.agents_grid) s += (s.empty() ? "" : ",") + std::to_string(n);
        return s;
      }()
          .c_str(),
      static_cast<unsigned long long>(o.rounds), o.homogeneous ? "homogeneous" : "heterogeneous",
      o.alpha, o.team.delta, static_cast<unsigned long long>(o.team.window_start),
      static_cast<unsigned long long>(o.team.window_stop), o.team.omega1, o.team.omega2,
      o.team.explore_rounds, o.violation == ViolationCost::optimum ? "r(s*)" : "max regret",
      o.team.log_base == CmabLogBase::two ? "2" : "e", o.instances, o.runs, tasks.size());
  std::printf("schedule paper: %s\n", schedule_text(o, CmabSchedule::paper).c_str());
  std::printf("schedule aligned: %s\n", schedule_text(o, CmabSchedule::aligned).c_str());
  std::printf("wire: share body %zu B, posting %zu B at m=%u (pfcb::posting_wire_size)\n",
              cmab_share_encoded_size(o.producers), pfcb::posting_wire_size(o.producers),
              o.producers);
  std::fflush(stdout);

  std::vector<RunResult> results(tasks.size());
  std::atomic<uint64_t> done{0};
  double total = 0.0;
  for (const Task& t : tasks) total += static_cast<double>(o.rounds) * t.agents;
  const auto wall_start = std::chrono::steady_clock::now();
  sim::ProgressThread bar("pfcb agent-rounds", total, done, o.quiet);
  try {
    tools::parallel_for(tasks.size(), o.threads, [&](std::size_t i) {
      const World world(instance_spec(o, tasks[i]));
      results[i] = run_one(o, tasks[i], world, &done);
    });
  } catch (const std::exception& e) {
    bar.stop();
    std::fprintf(stderr, "\np2b-sim: %s\n", e.what());
    return 1;
  }
  bar.stop();
  if (!o.quiet) sim::progress("pfcb agent-rounds", total, total);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  std::filesystem::create_directories(o.out_dir);
  write_results(o, results);
  // Run time per point (dist, n, epsilon): the CPU seconds of its runs.
  std::map<std::tuple<int, uint32_t, double>, std::pair<double, uint32_t>> per_point;
  for (const RunResult& r : results) {
    auto& p = per_point[{static_cast<int>(r.task.dist), r.task.agents, r.task.epsilon}];
    p.first += r.seconds;
    ++p.second;
  }
  std::printf("\ntime per point (CPU seconds of its runs):\n");
  for (const auto& [k, v] : per_point) {
    const double e = std::get<2>(k);
    char eps[32];
    std::snprintf(eps, sizeof eps, "%g", e);
    std::printf("  %-7s n=%-3u eps=%-5s %8.1f s over %u runs (%.2f s a run)\n",
                dist_name(static_cast<Dist>(std::get<0>(k))), std::get<1>(k),
                e == 0.0 ? "nf" : (std::isinf(e) ? "fcb" : eps), v.first, v.second,
                v.first / v.second);
  }
  std::printf("speed: %.1f s wall on %u threads\n", wall, o.threads);
  if (o.plot && !sim::plot_results(P2B_PLOT_PFCB, o.out_dir)) return 1;
  return 0;
}

}  // namespace p2b::pfcb_sim
