#include "compare_sim/compare_main.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "compare_sim/knob_solver.hpp"
#include "compare_sim/options.hpp"
#include "compare_sim/protocols.hpp"
#include "parallel/parallel_for.hpp"
#include "proc/run_command.hpp"
#include "sim/codebook_source.hpp"
#include "sim/multilabel_env.hpp"
#include "sim/plot_results.hpp"
#include "sim/progress.hpp"
#include "sim/sim_options.hpp"

namespace p2b::compare_sim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// One environment instance: a name, a seed and the users' world.
struct Slot {
  std::string env;
  uint64_t seed = 0;
  std::unique_ptr<sim::Environment> environment;
  World world;
  const sim::Codebook* codebook = nullptr;
};

struct Task {
  std::size_t slot;
  std::string protocol;
  double knob;
  int cost;                // rough, for ordering: the slowest first keeps both threads busy
  double target = 0.0;     // --spends: the spend the knob was solved for
  uint32_t threshold = 0;  // p2b: its crowd threshold (0: --threshold)
};

struct Row {
  std::string env;
  uint64_t seed = 0;
  Outcome out;
};

std::string num(double v) {
  if (std::isinf(v)) return "inf";
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

// The SimOptions the P2B side's helpers read (codebook, multi-label set).
sim::SimOptions sim_options(const Options& o, uint64_t seed) {
  sim::SimOptions so;
  so.codes = o.codes;
  so.digits = 1;
  so.seed = seed;
  so.threads = o.threads;
  so.quiet = o.quiet;
  so.out_dir = o.out_dir;
  so.data = o.data;
  so.labels = o.labels;
  return so;
}

// --spends: each protocol's knob for each target, the same for every slot
// (FCLUB's is solved inside its run: it depends on the run's ledger).
void add_spend_tasks(const Options& o, std::size_t s, bool p2b, bool fclub, bool pfcb,
                     std::vector<Task>* tasks) {
  for (double t : o.spends) {
    if (p2b) {
      const P2bKnob k = solve_p2b(t, o.delta, 1, o.threshold);
      tasks->push_back({s, "p2b", k.participation, 4, t, k.threshold});
    }
    if (fclub) tasks->push_back({s, "fclub", 0.0, 40, t});
    if (pfcb) tasks->push_back({s, "pfcb", solve_pfcb(t, o.interactions, o.delta), 6, t});
  }
  if (!o.nonprivate_variants) return;
  if (p2b) tasks->push_back({s, "p2b", kInf, 4});
  if (fclub) tasks->push_back({s, "fclub", kInf, 20});
  if (fclub) tasks->push_back({s, "fclub-alone", 0.0, 20});
  if (pfcb) tasks->push_back({s, "pfcb", kInf, 6});
}

std::vector<Task> make_tasks(const Options& o, std::size_t slots) {
  std::vector<Task> tasks;
  auto has = [&](const char* p) {
    return std::find(o.protocols.begin(), o.protocols.end(), p) != o.protocols.end();
  };
  std::vector<double> eps = o.epsilons;
  if (o.nonprivate_variants) eps.push_back(kInf);
  for (std::size_t s = 0; s < slots; ++s) {
    if (has("local")) tasks.push_back({s, "local", 0.0, 1});
    if (has("pooled")) tasks.push_back({s, "pooled", 0.0, 1});
    if (has("o3m")) tasks.push_back({s, "o3m", 0.0, 3});
    if (!o.spends.empty()) {
      add_spend_tasks(o, s, has("p2b"), has("fclub"), has("pfcb"), &tasks);
      continue;
    }
    if (has("p2b")) {
      for (double p : o.participations) tasks.push_back({s, "p2b", p, 4});
    }
    if (has("fclub")) {
      for (double e : eps) tasks.push_back({s, "fclub", e, 20});
    }
    if (has("pfcb")) {
      for (double e : eps) tasks.push_back({s, "pfcb", e, 6});
    }
  }
  std::stable_sort(tasks.begin(), tasks.end(),
                   [](const Task& a, const Task& b) { return a.cost > b.cost; });
  return tasks;
}

Outcome run_task(const Options& o, const Slot& slot, const Task& t) {
  const auto t0 = std::chrono::steady_clock::now();
  Outcome out;
  const std::vector<float>& codes = slot.codebook->centroids;
  if (t.protocol == "local") out = run_local(o, slot.world);
  if (t.protocol == "pooled") out = run_pooled(o, slot.world);
  if (t.protocol == "o3m") out = run_o3m(o, slot.world);
  if (t.protocol == "p2b") {
    if (std::isinf(t.knob)) {
      out = run_p2b_nonprivate(o, slot.world, codes, slot.codebook->k);
    } else {
      const uint32_t l = t.threshold > 0 ? t.threshold : o.threshold;
      out = run_p2b_at(o, slot.world, t.knob, l, codes, slot.codebook->k);
    }
  }
  if (t.protocol == "fclub") {
    out = t.target > 0 ? run_fclub_at_spend(o, slot.world, t.target)
                       : run_fclub(o, slot.world, t.knob);
  }
  if (t.protocol == "fclub-alone") out = run_fclub_alone(o, slot.world);
  if (t.protocol == "pfcb") out = run_pfcb(o, slot.world, t.knob);
  out.target = t.target;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

struct Summary {
  std::string env, protocol;
  double knob = 0, target = 0;  // with a target, the knob is the mean over seeds (FCLUB's vary)
  uint32_t seeds = 0, threshold = 0;
  double reward_all = 0, reward_all_sd = 0, reward_late = 0, reward_late_sd = 0;
  double epsilon = 0, delta = 0;                                 // the largest over seeds
  double user_epsilon = 0, user_delta = 0, formula_epsilon = 0;  // the largest over seeds
  double ledger_units = 0, merges = 0;                           // means
  double msgs_up = 0, msgs_down = 0, bytes_up = 0, bytes_down = 0, detail = 0, seconds = 0;
};

double sd(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  double m = 0;
  for (double x : v) m += x;
  m /= static_cast<double>(v.size());
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size() - 1));
}

std::vector<Summary> summarise(const std::vector<Row>& rows) {
  // A row belongs with the other seeds' rows of its target, else of its knob.
  using Key = std::tuple<std::string, std::string, double, double>;
  std::map<Key, std::vector<const Row*>> groups;
  std::vector<Key> order;
  for (const Row& r : rows) {
    const double knob = r.out.target > 0 ? 0.0 : r.out.knob;
    const Key key = std::make_tuple(r.env, r.out.protocol, r.out.target, knob);
    if (groups[key].empty()) order.push_back(key);
    groups[key].push_back(&r);
  }
  std::vector<Summary> out;
  for (const Key& key : order) {
    const auto& g = groups[key];
    Summary s;
    std::tie(s.env, s.protocol, s.target, s.knob) = key;
    s.seeds = static_cast<uint32_t>(g.size());
    std::vector<double> all, late;
    const auto n = static_cast<double>(g.size());
    for (const Row* r : g) {
      all.push_back(r->out.reward_all);
      late.push_back(r->out.reward_late);
      s.reward_all += r->out.reward_all / n;
      s.reward_late += r->out.reward_late / n;
      if (s.target > 0) s.knob += r->out.knob / n;  // a target's knob: the mean over seeds
      s.threshold = std::max(s.threshold, r->out.threshold);
      s.epsilon = std::max(s.epsilon, r->out.epsilon);
      s.delta = std::max(s.delta, r->out.delta);
      s.user_epsilon = std::max(s.user_epsilon, r->out.user_epsilon);
      s.user_delta = std::max(s.user_delta, r->out.user_delta);
      s.formula_epsilon = std::max(s.formula_epsilon, r->out.formula_epsilon);
      s.ledger_units += static_cast<double>(r->out.ledger_units) / n;
      s.merges += r->out.merges / n;
      s.msgs_up += r->out.msgs_up / n;
      s.msgs_down += r->out.msgs_down / n;
      s.bytes_up += r->out.bytes_up / n;
      s.bytes_down += r->out.bytes_down / n;
      s.detail += r->out.detail / n;
      s.seconds += r->out.seconds / n;
    }
    s.reward_all_sd = sd(all);
    s.reward_late_sd = sd(late);
    out.push_back(s);
  }
  // Stable order for readers: env, then protocol as the brief lists them, then knob.
  const std::vector<std::string> rank{"local", "p2b", "fclub", "fclub-alone",
                                      "pfcb",  "o3m", "pooled"};
  auto pos = [&](const std::string& p) {
    return std::find(rank.begin(), rank.end(), p) - rank.begin();
  };
  std::stable_sort(out.begin(), out.end(), [&](const Summary& a, const Summary& b) {
    if (a.env != b.env) return a.env > b.env;  // synthetic before multilabel
    if (a.protocol != b.protocol) return pos(a.protocol) < pos(b.protocol);
    // Targets in order, the non-private reference (target 0, knob inf) last.
    const double ta = a.target > 0 ? a.target : a.knob, tb = b.target > 0 ? b.target : b.knob;
    return ta < tb;
  });
  return out;
}

void write_files(const Options& o, const std::vector<Row>& rows, const std::vector<Summary>& sum,
                 const nlohmann::json& meta) {
  std::ofstream runs(o.out_dir + "/runs.csv");
  runs << "env,protocol,knob,seed,reward_all,reward_late,epsilon,delta,msgs_up,msgs_down,"
          "bytes_up,bytes_down,detail,check,seconds,target,threshold,user_epsilon,user_delta,"
          "formula_epsilon,ledger_units,merges\n";
  for (const Row& r : rows) {
    const Outcome& x = r.out;
    runs << r.env << ',' << x.protocol << ',' << num(x.knob) << ',' << r.seed << ','
         << num(x.reward_all) << ',' << num(x.reward_late) << ',' << num(x.epsilon) << ','
         << num(x.delta) << ',' << num(x.msgs_up) << ',' << num(x.msgs_down) << ','
         << num(x.bytes_up) << ',' << num(x.bytes_down) << ',' << num(x.detail) << ','
         << num(x.check) << ',' << num(x.seconds) << ',' << num(x.target) << ',' << x.threshold
         << ',' << num(x.user_epsilon) << ',' << num(x.user_delta) << ',' << num(x.formula_epsilon)
         << ',' << x.ledger_units << ',' << x.merges << '\n';
  }
  std::ofstream csv(o.out_dir + "/summary.csv");
  csv << "env,protocol,knob,seeds,reward_all,reward_all_sd,reward_late,reward_late_sd,epsilon,"
         "delta,unit,adversary,msgs_up,msgs_down,bytes_up,bytes_down,bytes_total,detail,seconds,"
         "target,threshold,user_epsilon,user_delta,formula_epsilon,ledger_units,merges\n";
  nlohmann::json js = meta;
  js["summary"] = nlohmann::json::array();
  for (const Summary& s : sum) {
    csv << s.env << ',' << s.protocol << ',' << num(s.knob) << ',' << s.seeds << ','
        << num(s.reward_all) << ',' << num(s.reward_all_sd) << ',' << num(s.reward_late) << ','
        << num(s.reward_late_sd) << ',' << num(s.epsilon) << ',' << num(s.delta) << ','
        << privacy_unit(s.protocol) << ',' << privacy_adversary(s.protocol) << ',' << num(s.msgs_up)
        << ',' << num(s.msgs_down) << ',' << num(s.bytes_up) << ',' << num(s.bytes_down) << ','
        << num(s.bytes_up + s.bytes_down) << ',' << num(s.detail) << ',' << num(s.seconds) << ','
        << num(s.target) << ',' << s.threshold << ',' << num(s.user_epsilon) << ','
        << num(s.user_delta) << ',' << num(s.formula_epsilon) << ',' << num(s.ledger_units) << ','
        << num(s.merges) << '\n';
    // JSON has no infinity: "inf" stands for it, as in the CSV.
    auto j = [](double v) { return std::isinf(v) ? nlohmann::json("inf") : nlohmann::json(v); };
    js["summary"].push_back({{"env", s.env},
                             {"protocol", s.protocol},
                             {"knob", j(s.knob)},
                             {"seeds", s.seeds},
                             {"reward_all", s.reward_all},
                             {"reward_all_sd", s.reward_all_sd},
                             {"reward_late", s.reward_late},
                             {"reward_late_sd", s.reward_late_sd},
                             {"epsilon", j(s.epsilon)},
                             {"delta", s.delta},
                             {"unit", privacy_unit(s.protocol)},
                             {"adversary", privacy_adversary(s.protocol)},
                             {"msgs_up", s.msgs_up},
                             {"msgs_down", s.msgs_down},
                             {"bytes_up", s.bytes_up},
                             {"bytes_down", s.bytes_down},
                             {"detail", s.detail},
                             {"seconds", s.seconds},
                             {"target", s.target},
                             {"threshold", s.threshold},
                             {"user_epsilon", j(s.user_epsilon)},
                             {"user_delta", s.user_delta},
                             {"formula_epsilon", j(s.formula_epsilon)},
                             {"ledger_units", s.ledger_units},
                             {"merges", s.merges}});
  }
  std::ofstream(o.out_dir + "/results.json") << js.dump(2) << '\n';
}

void print_table(const std::vector<Summary>& sum) {
  std::printf("\n%-10s %-11s %6s %9s %19s %19s %9s %9s %9s %8s %10s %10s %7s\n", "env", "proto",
              "target", "knob", "reward (all)", "reward (late)", "eps", "delta", "eps/user",
              "msgs/u", "B up/u", "B down/u", "detail");
  for (const Summary& s : sum) {
    std::printf(
        "%-10s %-11s %6s %9s %9.5f+-%.5f %9.5f+-%.5f %9s %9s %9s %8.2f %10.0f %10.0f %7.3f\n",
        s.env.c_str(), s.protocol.c_str(), s.target > 0 ? num(s.target).c_str() : "-",
        num(s.knob).c_str(), s.reward_all, s.reward_all_sd, s.reward_late, s.reward_late_sd,
        num(s.epsilon).c_str(), num(s.delta).c_str(), num(s.user_epsilon).c_str(),
        s.msgs_up + s.msgs_down, s.bytes_up, s.bytes_down, s.detail);
  }
  std::printf(
      "units and adversaries of eps (eps/user: per user over the horizon, same adversaries):\n"
      "  p2b:    %s; %s\n  fclub:  %s; %s\n  pfcb:   %s; %s\n  o3m:    %s; %s\n"
      "  pooled: %s; %s\n",
      privacy_unit("p2b"), privacy_adversary("p2b"), privacy_unit("fclub"),
      privacy_adversary("fclub"), privacy_unit("pfcb"), privacy_adversary("pfcb"),
      privacy_unit("o3m"), privacy_adversary("o3m"), privacy_unit("pooled"),
      privacy_adversary("pooled"));
  std::printf(
      "detail: local the oracle's reward per step; p2b kept/reported after the crowd threshold; "
      "fclub global clusters at the end;\n"
      "pfcb accepted/offered arm reports\n");
}

// --spends: each private run's spend per user, from its own ledger, against
// its target and against the conversion's prediction from its knob.
bool check_spends(const std::vector<Row>& rows, double delta) {
  double worst = 0.0;
  bool ok = true;
  bool any = false;
  for (const Row& r : rows) {
    const Outcome& x = r.out;
    if (!(x.target > 0.0)) continue;
    any = true;
    const double gap = std::max(std::fabs(x.user_epsilon - x.target),
                                std::fabs(x.user_epsilon - x.formula_epsilon)) /
                       x.target;
    worst = std::max(worst, gap);
    if (gap <= kSpendTolerance && x.user_delta <= delta * (1.0 + 1e-9)) continue;
    ok = false;
    std::fprintf(stderr,
                 "p2b-sim: %s %s seed %llu: spent epsilon %g (formula %g) at delta %g, against "
                 "the target %g at delta %g\n",
                 r.env.c_str(), x.protocol.c_str(), static_cast<unsigned long long>(r.seed),
                 x.user_epsilon, x.formula_epsilon, x.user_delta, x.target, delta);
  }
  if (any) {
    std::printf(
        "check: epsilon per user spent (own ledgers) against the targets: largest relative gap "
        "%.3g (tolerance %g)\n",
        worst, kSpendTolerance);
  }
  return ok;
}

// Why FCLUB's reward may not move with epsilon: private runs against FCLUB
// with every server alone, on the same world.
void print_fclub_diagnosis(const std::vector<Row>& rows) {
  double gap = 0.0, merges = 0.0;
  int runs = 0;
  for (const Row& r : rows) {
    if (r.out.protocol != "fclub" || std::isinf(r.out.knob)) continue;
    for (const Row& a : rows) {
      if (a.out.protocol == "fclub-alone" && a.env == r.env && a.seed == r.seed) {
        gap = std::max(gap, std::fabs(r.out.reward_all - a.out.reward_all));
        merges += r.out.merges;
        ++runs;
      }
    }
  }
  if (runs == 0) return;
  std::printf(
      "fclub: private runs joined %.3g local clusters across servers per run; their rewards "
      "differ from every server alone by at most %.3g\n",
      merges / runs, gap);
}

}  // namespace

const char* privacy_unit(const std::string& protocol) {
  if (protocol == "p2b") return "one report (at most one per user)";
  if (protocol == "fclub") return "one interaction";
  if (protocol == "pfcb")
    return "one interaction's contribution to one release; all releases composed";
  if (protocol == "pooled") return "none: every interaction in the clear";
  if (protocol == "o3m") return "none (no DP): features masked between parties";
  if (protocol == "fclub-alone") return "nothing leaves the user's local server";
  return "nothing leaves the device";
}

const char* privacy_adversary(const std::string& protocol) {
  if (protocol == "p2b")
    return "the analyzer (the shuffler sees who but is trusted not to collude)";
  if (protocol == "fclub")
    return "the global server and the other local servers (own local server trusted)";
  if (protocol == "pfcb") return "every other user and the relay";
  if (protocol == "pooled") return "the central server";
  if (protocol == "o3m")
    return "the active party sees every reward and inner product; the mask hides a passive "
           "party's raw features from it (mask generator trusted not to collude)";
  return "-";
}

int compare_main(int argc, char** argv) {
  Options o;
  if (const int st = parse_options(argc, argv, &o); st >= 0) return st;
  try {
    const auto t_start = std::chrono::steady_clock::now();
    std::filesystem::create_directories(o.out_dir);
    const auto early = static_cast<uint64_t>(std::floor(o.users * o.early_fraction));
    // P2B's run_point derives the population from u and the fraction; every
    // protocol uses the same figure.
    const auto population = static_cast<uint64_t>(static_cast<double>(early) / o.early_fraction);
    std::printf(
        "p2b-sim --protocol compare: N=%llu users (early %llu, late %llu), T_u=%u steps each,\n"
        "cohorts in turn, round-robin within a cohort; %u seeds from %llu; delta=%g\n",
        static_cast<unsigned long long>(population), static_cast<unsigned long long>(early),
        static_cast<unsigned long long>(population - early), o.interactions, o.seeds,
        static_cast<unsigned long long>(o.seed), o.delta);

    std::map<std::string, sim::Codebook> codebooks;
    std::optional<data::MultiLabelSet> ml;
    std::vector<Slot> slots;
    for (const std::string& env : o.envs) {
      uint32_t dim = o.dim;
      if (env == "multilabel") {
        ml = sim::load_multilabel_set(sim_options(o, o.seed), o.ml_dim);
        dim = o.ml_dim;
        if (dim * ml->n_labels > 64) {
          std::fprintf(stderr,
                       "p2b-sim: --ml-dim %u x %zu labels exceeds FCLUB's 64 wire dimensions\n",
                       dim, ml->n_labels);
          return 2;
        }
      }
      // One public codebook per environment, trained on the simplex: it
      // does not depend on the users, so every seed shares it.
      codebooks[env] = sim::codebook_for(sim_options(o, o.seed), dim);
      for (uint32_t i = 0; i < o.seeds; ++i) {
        Slot s;
        s.env = env;
        s.seed = o.seed + i;
        if (env == "synthetic") {
          sim::EnvParams ep;
          ep.dim = o.dim;
          ep.n_actions = o.actions;
          ep.beta = o.beta;
          ep.noise_variance = o.noise_sd * o.noise_sd;
          ep.seed = s.seed;
          ep.mapping = o.mapping == "linear" ? sim::Mapping::linear : sim::Mapping::softmax;
          s.environment = std::make_unique<sim::SyntheticEnvironment>(sim::SyntheticEnv(ep));
        } else {
          s.environment = sim::make_multilabel_environment(sim_options(o, s.seed), o.interactions,
                                                           *ml, population);
        }
        s.world = World{s.environment.get(), population, early, o.interactions, s.seed};
        s.codebook = &codebooks[env];
        slots.push_back(std::move(s));
      }
    }
    const std::size_t posting =
        pfcb_posting_bytes(static_cast<std::size_t>(o.actions) * o.dim * (o.dim + 1) / 2,
                           static_cast<std::size_t>(o.actions) * o.dim);
    std::printf("P-FCB-style posting (synthetic d=%u, |A|=%u): %zu B\n", o.dim, o.actions, posting);

    const std::vector<Task> tasks = make_tasks(o, slots.size());
    std::vector<Row> rows(tasks.size());
    std::mutex mu;
    std::size_t done = 0;
    tools::parallel_for(tasks.size(), o.threads, [&](std::size_t i) {
      const Task& t = tasks[i];
      rows[i] = Row{slots[t.slot].env, slots[t.slot].seed, run_task(o, slots[t.slot], t)};
      if (o.quiet) return;
      const std::lock_guard<std::mutex> lock(mu);
      sim::progress("runs", static_cast<double>(++done), static_cast<double>(tasks.size()));
    });
    const std::vector<Summary> sum = summarise(rows);

    nlohmann::json meta;
    meta["schedule"] =
        "N users in two cohorts (early then late), T_u steps each, round-robin within a cohort";
    meta["users"] = population;
    meta["early_users"] = early;
    meta["steps_per_user"] = o.interactions;
    meta["seeds"] = o.seeds;
    meta["first_seed"] = o.seed;
    meta["delta"] = o.delta;
    meta["synthetic"] = {{"dim", o.dim},
                         {"actions", o.actions},
                         {"mapping", o.mapping},
                         {"beta", o.beta},
                         {"noise_sd", o.noise_sd}};
    if (ml) meta["multilabel"] = {{"data", o.data}, {"dim", o.ml_dim}, {"labels", ml->n_labels}};
    meta["p2b"] = {{"codes", o.codes}, {"threshold", o.threshold}, {"alpha", o.alpha}};
    meta["fclub"] = {{"servers", o.servers}, {"beta_scale", o.beta_scale}};
    meta["spends"] = o.spends;
    meta["pfcb"] = {{"omega1", o.omega1}, {"omega2", o.omega2}, {"posting_bytes", posting}};
    write_files(o, rows, sum, meta);
    print_table(sum);
    // The one exact cross-check the schedule allows: P2B's own cold late
    // users are local-only's late users (same agent, same coins).
    double worst = 0;
    for (const Row& r : rows) {
      if (r.out.protocol != "p2b") continue;
      for (const Row& l : rows) {
        if (l.out.protocol == "local" && l.env == r.env && l.seed == r.seed) {
          worst = std::max(worst, std::fabs(l.out.reward_late - r.out.check));
        }
      }
    }
    for (const std::string& env : o.envs) {
      double oracle = 0;
      int n = 0;
      for (const Row& r : rows) {
        if (r.out.protocol == "local" && r.env == env) {
          oracle += r.out.check;
          ++n;
        }
      }
      if (n > 0)
        std::printf("oracle (%s): %.5f per step, the best arm in expectation\n", env.c_str(),
                    oracle / n);
    }
    uint64_t fallbacks = 0;
    for (const Row& r : rows) fallbacks += r.out.fallbacks;
    if (fallbacks > 0) {
      std::printf("pfcb: %llu steps ran on a user's own statistics (peer sum refused by import)\n",
                  static_cast<unsigned long long>(fallbacks));
    }
    std::printf("check: P2B's cold late users against local-only's late users: largest gap %.3g\n",
                worst);
    print_fclub_diagnosis(rows);
    const bool spends_ok = check_spends(rows, o.delta);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    std::printf("results: %s/summary.csv, runs.csv, results.json (%zu runs) in %.1f s\n",
                o.out_dir.c_str(), rows.size(), secs);
    std::fflush(stdout);
    if (o.plot && !sim::plot_results(P2B_PLOT_COMPARE, o.out_dir)) return 1;
    return spends_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "\np2b-sim: error: %s\n", e.what());
    return 1;
  }
}

}  // namespace p2b::compare_sim
