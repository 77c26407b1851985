#include "pfcb_sim/options.hpp"

#include <cstdio>
#include <limits>
#include <map>

#include "cli/tool_cli.hpp"

namespace p2b::pfcb_sim {

namespace {
const std::vector<std::string> kAll{"nf", "fcb", "pfcb", "pfcb-aligned", "pfcb-accept-all"};
}  // namespace

int parse_options(int argc, char** argv, Options* o) {
  CLI::App app(
      "p2b-sim --protocol pfcb: seed 004's federated combinatorial bandits under a\n"
      "quality constraint (P-FCB) on p2b::CmabAgent. Every algorithm sees the same\n"
      "instances and realisations; writes regret, constraint, acceptance, traffic and\n"
      "privacy per run (docs/simulator.md#p-fcb).",
      "p2b-sim");
  tools::add_common_flags(app);
  std::string protocol;
  app.add_option("--protocol", protocol, "pfcb")->required()->check(CLI::IsMember({"pfcb"}));
  app.add_option("--algorithms", o->algorithms,
                 "any of nf, fcb, pfcb, pfcb-aligned, pfcb-accept-all\n"
                 "[nf,fcb,pfcb,pfcb-aligned]")
      ->delimiter(',')
      ->check(CLI::IsMember(kAll));
  const std::map<std::string, Dist> dists{{"uniform", Dist::uniform}, {"normal", Dist::normal}};
  app.add_option("--dist", o->dists,
                 "q and c: uniform (U[0,1]) or normal (N(0.4, 0.2) clipped to [0,1], the\n"
                 "figures'), a grid axis [uniform,normal]")
      ->delimiter(',')
      ->transform(CLI::CheckedTransformer(dists));
  app.add_option("--epsilons", o->epsilons, "P-FCB's total epsilon, a grid axis [1,0.3]")
      ->delimiter(',')
      ->check(CLI::Range(1e-6, 1e9));
  app.add_option("--agents-grid", o->agents_grid, "n values, a grid axis [10]")
      ->delimiter(',')
      ->check(CLI::Range(1U, 1024U));
  app.add_option_function<uint32_t>(
         "--agents", [o](uint32_t n) { o->agents_grid = {n}; }, "n, one value [10]")
      ->check(CLI::Range(1U, 1024U));
  app.add_option("--producers", o->producers, "m [30]")->check(CLI::Range(1U, 64U));
  app.add_option("--instances", o->instances, "instances (q, c, k draws) [5]")
      ->check(CLI::Range(1U, 10000U));
  app.add_option("--runs", o->runs, "runs (realisations) per instance [20]")
      ->check(CLI::Range(1U, 10000U));
  app.add_option("--rounds", o->rounds, "T [100000]")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 32));
  app.add_option("--every", o->every, "regret curve step in rounds [rounds/100]")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 32));
  std::string setting = "heterogeneous";
  app.add_option("--setting", setting,
                 "heterogeneous (per-agent c, k: the paper's P-FCB) or homogeneous (agent 0's\n"
                 "for all) [heterogeneous]")
      ->check(CLI::IsMember({"heterogeneous", "homogeneous"}));
  app.add_option("--max-capacity", o->max_capacity, "k ~ U{1..this} [50]")
      ->check(CLI::Range(1U, 1000U));
  app.add_option("--alpha", o->alpha, "quality threshold [0.4]")->check(CLI::Range(0.0, 1.0));
  const std::map<std::string, ViolationCost> costs{{"optimum", ViolationCost::optimum},
                                                   {"max-regret", ViolationCost::max_regret}};
  app.add_option("--violation-cost", o->violation,
                 "L of a round that breaks the constraint: optimum (r(s*), the probe's) or\n"
                 "max-regret (r(s*) - min_s r(s), the paper's) [optimum]")
      ->transform(CLI::CheckedTransformer(costs));
  TeamSpec& t = o->team;
  const std::map<std::string, CmabSchedule> schedules{{"paper", CmabSchedule::paper},
                                                      {"aligned", CmabSchedule::aligned},
                                                      {"every-round", CmabSchedule::every_round}};
  app.add_option("--schedule", t.schedule,
                 "pfcb's and pfcb-accept-all's schedule: paper (tau from 1, Alg. 2),\n"
                 "aligned (tau from the window start) or every-round [paper]")
      ->transform(CLI::CheckedTransformer(schedules));
  const std::map<std::string, CmabLogBase> bases{{"2", CmabLogBase::two},
                                                 {"e", CmabLogBase::natural}};
  app.add_option("--log-base", t.log_base, "log T of the budget split: 2 or e [2]")
      ->transform(CLI::CheckedTransformer(bases));
  app.add_option("--window-start", t.window_start, "first round that may release [200]")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 32));
  app.add_option("--window-stop", t.window_stop, "last round that may release [40000]")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 32));
  app.add_option("--delta", t.delta, "delta of the Gaussian noise [0.01]")
      ->check(CLI::Range(1e-12, 0.5));
  app.add_option("--omega1", t.omega1, "acceptance radius scale (inf: accept all) [0.1]")
      ->check(CLI::Range(0.0, std::numeric_limits<double>::infinity()));
  app.add_option("--omega2", t.omega2, "weight of an accepted report [10]")
      ->check(CLI::Range(0.0, 1e6));
  app.add_option("--explore-rounds", t.explore_rounds, "rounds of one unit each [10]")
      ->check(CLI::Range(0U, 1000000U));
  app.add_option("--ucb-scale", t.ucb_scale, "UCB radius scale [1]")->check(CLI::Range(0.0, 1e3));
  app.add_option("--quality-margin", t.quality_margin,
                 "gamma: the oracle aims at alpha + gamma under the UCBs (the paper's margin,\n"
                 "value unstated) [0]")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--public-max-capacity", t.public_max_capacity,
                 "noise sensitivity: 0 = each producer's own capacity (the paper's), else\n"
                 "this public bound [0]")
      ->check(CLI::Range(0U, 1U << 20));
  app.add_option("--seed", o->seed, "first seed [1]");
  app.add_option("--threads", o->threads, "runs at once [2]")->check(CLI::Range(1U, 256U));
  app.add_flag("--plot", o->plot, "draw PNGs with tools/plot_pfcb.py");
  app.add_flag("--quiet", o->quiet, "no progress bar");
  app.add_option("--out", o->out_dir, "output directory [out/pfcb]");
  const int st = tools::parse_command_line(app, argc, argv);
  if (st >= 0) return st;
  o->homogeneous = setting == "homogeneous";
  t.horizon = o->rounds;
  if (o->every == 0) o->every = o->rounds >= 100 ? o->rounds / 100 : 1;
  if (t.window_start > t.window_stop) {
    std::fprintf(stderr, "p2b-sim: --window-start (%llu) is after --window-stop (%llu)\n",
                 static_cast<unsigned long long>(t.window_start),
                 static_cast<unsigned long long>(t.window_stop));
    return 2;
  }
  if (t.public_max_capacity != 0 && t.public_max_capacity < o->max_capacity) {
    std::fprintf(stderr, "p2b-sim: --public-max-capacity (%u) is below --max-capacity (%u)\n",
                 t.public_max_capacity, o->max_capacity);
    return 2;
  }
  return -1;
}

}  // namespace p2b::pfcb_sim
