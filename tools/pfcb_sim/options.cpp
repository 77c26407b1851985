#include "pfcb_sim/options.hpp"

#include <limits>
#include <map>
#include <memory>

#include "cli/deprecated_flag.hpp"
#include "cli/field_check.hpp"
#include "cli/tool_cli.hpp"

namespace p2b::pfcb_sim {

namespace {

constexpr uint64_t kMaxRounds = uint64_t{1} << 32;
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string check_scalars(const Options& o) {
  using tools::check_range;
  const TeamSpec& t = o.team;
  return tools::first_problem({
      check_range<uint32_t>("--seeds", o.run.seeds, 1, 10000),
      check_range<uint32_t>("--threads", o.run.threads, 1, 1024),
      check_range<uint32_t>("--producers", o.producers, 1, 64),
      check_range<uint32_t>("--instances", o.instances, 1, 10000),
      check_range<uint64_t>("--rounds", o.rounds, 1, kMaxRounds),
      o.every == 0 ? "" : check_range<uint64_t>("--every", o.every, 1, kMaxRounds),
      check_range<uint32_t>("--max-capacity", o.max_capacity, 1, 1000),
      check_range("--alpha", o.alpha, 0.0, 1.0),
      check_range<uint64_t>("--window-start", t.window_start, 1, kMaxRounds),
      check_range<uint64_t>("--window-stop", t.window_stop, 1, kMaxRounds),
      check_range("--delta", t.delta, 1e-12, 0.5),
      check_range("--omega1", t.omega1, 0.0, kInf),
      check_range("--omega2", t.omega2, 0.0, 1e6),
      check_range<uint32_t>("--explore-rounds", t.explore_rounds, 0, 1000000),
      check_range("--ucb-scale", t.ucb_scale, 0.0, 1e3),
      check_range("--quality-margin", t.quality_margin, 0.0, 1.0),
      check_range<uint32_t>("--public-max-capacity", t.public_max_capacity, 0, 1U << 20),
  });
}

std::string check_lists(const Options& o) {
  if (o.algorithms.empty()) return "--algorithms is empty: give at least one value";
  for (const std::string& a : o.algorithms) {
    if (std::string why = tools::check_member("--algorithms", a, all_algorithms()); !why.empty())
      return why;
  }
  if (o.dists.empty()) return "--dist is empty: give at least one value";
  return tools::first_problem({
      tools::check_each("--epsilons", o.epsilons, 1e-6, 1e9),
      tools::check_each<uint32_t>("--agents-grid", o.agents_grid, 1, 1024),
  });
}

}  // namespace

const std::vector<std::string>& all_algorithms() {
  static const std::vector<std::string> all{"nf", "fcb", "pfcb", "pfcb-aligned", "pfcb-accept-all"};
  return all;
}

uint64_t curve_step(const Options& o) {
  if (o.every != 0) return o.every;
  return o.rounds >= 100 ? o.rounds / 100 : 1;
}

std::string validate(const Options& o) {
  if (std::string why = tools::first_problem({check_scalars(o), check_lists(o)}); !why.empty())
    return why;
  const TeamSpec& t = o.team;
  if (t.window_start > t.window_stop) {
    return "--window-start = " + std::to_string(t.window_start) +
           ": must not be after --window-stop (" + std::to_string(t.window_stop) + ")";
  }
  if (t.public_max_capacity != 0 && t.public_max_capacity < o.max_capacity) {
    return "--public-max-capacity = " + std::to_string(t.public_max_capacity) +
           ": must be 0 or at least --max-capacity (" + std::to_string(o.max_capacity) + ")";
  }
  return {};
}

namespace {

void add_grid_flags(CLI::App& app, Options* o) {
  app.add_option("--algorithms", o->algorithms,
                 "any of nf, fcb, pfcb, pfcb-aligned, pfcb-accept-all\n"
                 "[nf,fcb,pfcb,pfcb-aligned]")
      ->type_name("LIST")
      ->delimiter(',')
      ->check(CLI::IsMember(all_algorithms()));
  const std::map<std::string, Dist> dists{{"uniform", Dist::uniform}, {"normal", Dist::normal}};
  app.add_option("--dist", o->dists,
                 "q and c: uniform (U[0,1]) or normal (N(0.4, 0.2) clipped to [0,1], the\n"
                 "figures'), a grid axis [uniform,normal]")
      ->type_name("LIST")
      ->delimiter(',')
      ->transform(CLI::CheckedTransformer(dists));
  app.add_option("--epsilons", o->epsilons, "P-FCB's total epsilon, a grid axis [1,0.3]")
      ->type_name("EPS,...")
      ->delimiter(',')
      ->check(CLI::Range(1e-6, 1e9));
  app.add_option("--agents-grid", o->agents_grid, "n values, a grid axis [10]")
      ->type_name("N,...")
      ->delimiter(',')
      ->check(CLI::Range(1U, 1024U));
  app.add_option_function<uint32_t>(
         "--agents", [o](uint32_t n) { o->agents_grid = {n}; }, "n, one value [10]")
      ->type_name("N")
      ->check(CLI::Range(1U, 1024U));
}

void add_instance_flags(CLI::App& app, Options* o) {
  app.add_option("--producers", o->producers, "m")
      ->type_name("N")
      ->check(CLI::Range(1U, 64U))
      ->capture_default_str();
  app.add_option("--instances", o->instances, "instances (q, c, k draws)")
      ->type_name("N")
      ->check(CLI::Range(1U, 10000U))
      ->capture_default_str();
  app.add_option("--rounds", o->rounds, "T")
      ->type_name("N")
      ->check(CLI::Range(uint64_t{1}, kMaxRounds))
      ->capture_default_str();
  app.add_option("--every", o->every, "regret curve step in rounds [rounds/100]")
      ->type_name("N")
      ->check(CLI::Range(uint64_t{1}, kMaxRounds));
  app.add_option_function<std::string>(
         "--setting", [o](const std::string& s) { o->homogeneous = s == "homogeneous"; },
         "heterogeneous (per-agent c, k: the paper's P-FCB) or homogeneous (agent 0's\n"
         "for all) [heterogeneous]")
      ->type_name("SETTING")
      ->check(CLI::IsMember({"heterogeneous", "homogeneous"}));
  app.add_option("--max-capacity", o->max_capacity, "k ~ U{1..this}")
      ->type_name("N")
      ->check(CLI::Range(1U, 1000U))
      ->capture_default_str();
  app.add_option("--alpha", o->alpha, "quality threshold")
      ->type_name("X")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  const std::map<std::string, ViolationCost> costs{{"optimum", ViolationCost::optimum},
                                                   {"max-regret", ViolationCost::max_regret}};
  app.add_option("--violation-cost", o->violation,
                 "L of a round that breaks the constraint: optimum (r(s*), the probe's) or\n"
                 "max-regret (r(s*) - min_s r(s), the paper's) [optimum]")
      ->type_name("COST")
      ->transform(CLI::CheckedTransformer(costs));
}

void add_schedule_flags(CLI::App& app, TeamSpec& t) {
  const std::map<std::string, CmabSchedule> schedules{{"paper", CmabSchedule::paper},
                                                      {"aligned", CmabSchedule::aligned},
                                                      {"every-round", CmabSchedule::every_round}};
  app.add_option("--schedule", t.schedule,
                 "pfcb's and pfcb-accept-all's schedule: paper (tau from 1, Alg. 2),\n"
                 "aligned (tau from the window start) or every-round [paper]")
      ->type_name("SCHEDULE")
      ->transform(CLI::CheckedTransformer(schedules));
  const std::map<std::string, CmabLogBase> bases{{"2", CmabLogBase::two},
                                                 {"e", CmabLogBase::natural}};
  app.add_option("--log-base", t.log_base, "log T of the budget split: 2 or e [2]")
      ->type_name("BASE")
      ->transform(CLI::CheckedTransformer(bases));
  app.add_option("--window-start", t.window_start, "first round that may release")
      ->type_name("N")
      ->check(CLI::Range(uint64_t{1}, kMaxRounds))
      ->capture_default_str();
  app.add_option("--window-stop", t.window_stop, "last round that may release")
      ->type_name("N")
      ->check(CLI::Range(uint64_t{1}, kMaxRounds))
      ->capture_default_str();
  app.add_option("--delta", t.delta, "delta of the Gaussian noise")
      ->type_name("X")
      ->check(CLI::Range(1e-12, 0.5))
      ->capture_default_str();
}

void add_sharing_flags(CLI::App& app, TeamSpec& t) {
  app.add_option("--omega1", t.omega1, "acceptance radius scale (inf: accept all)")
      ->type_name("X")
      ->check(CLI::Range(0.0, kInf))
      ->capture_default_str();
  app.add_option("--omega2", t.omega2, "weight of an accepted report")
      ->type_name("X")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  app.add_option("--explore-rounds", t.explore_rounds, "rounds of one unit each")
      ->type_name("N")
      ->check(CLI::Range(0U, 1000000U))
      ->capture_default_str();
  app.add_option("--ucb-scale", t.ucb_scale, "UCB radius scale")
      ->type_name("X")
      ->check(CLI::Range(0.0, 1e3))
      ->capture_default_str();
  app.add_option("--quality-margin", t.quality_margin,
                 "gamma: the oracle aims at alpha + gamma under the UCBs (the paper's margin,\n"
                 "value unstated)")
      ->type_name("X")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--public-max-capacity", t.public_max_capacity,
                 "noise sensitivity: 0 = each producer's own capacity (the paper's), else\n"
                 "this public bound")
      ->type_name("N")
      ->check(CLI::Range(0U, 1U << 20))
      ->capture_default_str();
}

// The command line's parser, bound to *o (and the --protocol value to
// *protocol): parse_options and long_flags share it.
std::unique_ptr<CLI::App> make_app(Options* o, std::string* protocol) {
  auto app = std::make_unique<CLI::App>(
      "p2b-sim --protocol pfcb: seed 004's federated combinatorial bandits under a\n"
      "quality constraint (P-FCB) on p2b::CmabAgent. Every algorithm sees the same\n"
      "instances and realisations; writes regret, constraint, acceptance, traffic and\n"
      "privacy per run (docs/simulator.md#p-fcb). --seeds is the runs (realisations)\n"
      "per instance.",
      "p2b-sim");
  tools::add_common_flags(*app);
  app->add_option("--protocol", *protocol, "pfcb")
      ->type_name("NAME")
      ->required()
      ->check(CLI::IsMember({"pfcb"}));
  tools::add_common_run_flags(*app, o->run);
  tools::add_deprecated_alias(*app, "--runs", "--seeds", o->run.seeds);
  add_grid_flags(*app, o);
  add_instance_flags(*app, o);
  add_schedule_flags(*app, o->team);
  add_sharing_flags(*app, o->team);
  return app;
}

}  // namespace

std::vector<std::string> long_flags() {
  Options o;
  std::string protocol;
  return tools::visible_long_flags(*make_app(&o, &protocol));
}

int parse_options(int argc, char** argv, Options* o) {
  std::string protocol;
  const auto app = make_app(o, &protocol);
  return tools::parse_command_line(*app, argc, argv);
}

}  // namespace p2b::pfcb_sim
