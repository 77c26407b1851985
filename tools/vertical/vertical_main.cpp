#include "vertical/vertical_main.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "parallel/parallel_for.hpp"
#include "proc/run_command.hpp"
#include "sim/plot_results.hpp"
#include "sim/progress.hpp"
#include "vertical/cost.hpp"
#include "vertical/options.hpp"
#include "vertical/trial.hpp"
#include "vertical/world.hpp"

namespace p2b::vertical {
namespace {

const char* policy_name(Policy p) {
  return p == Policy::lints ? "lints" : "linucb";
}

struct Job {
  Policy policy;
  uint64_t seed;
  TrialResult result;
  std::string describe;
};

std::unique_ptr<World> make_world(const Options& o, uint64_t seed, std::string* err) {
  if (o.env == "multilabel") {
    return multilabel_world(o.data, o.labels, o.parties, o.components, seed, err);
  }
  return synthetic_world(o.dim, o.items, o.partition, o.noise_sd, seed);
}

struct Stats {
  double mean = 0.0;
  double sd = 0.0;
};

Stats stats_of(const std::vector<double>& v) {
  Stats s;
  for (const double x : v) s.mean += x / static_cast<double>(v.size());
  for (const double x : v) s.sd += (x - s.mean) * (x - s.mean);
  s.sd = v.size() > 1 ? std::sqrt(s.sd / static_cast<double>(v.size() - 1)) : 0.0;
  return s;
}

bool write_results(const Options& o, const std::vector<Job>& jobs) {
  const std::filesystem::path dir(o.out_dir);
  FILE* f = std::fopen((dir / "results.csv").c_str(), "w");
  if (f == nullptr) return false;
  std::fprintf(f,
               "env,policy,seed,series,columns,rounds,regret,mean_reward,same_actions,"
               "first_divergence,theta_norm_gap,central_us,active_us,party_us,bytes_per_party,"
               "best_fixed_item\n");
  for (const Job& j : jobs) {
    for (const Series& s : j.result.series) {
      const std::string cols = s.name.rfind("partial-", 0) == 0 ? s.name.substr(8) : "";
      std::fprintf(f, "%s,%s,%llu,%s,%s,%llu,%.6f,%.6f,%llu,%lld,%.3e,%.2f,%.2f,%.2f,%llu,%.6f\n",
                   o.env.c_str(), policy_name(j.policy), static_cast<unsigned long long>(j.seed),
                   s.name.rfind("partial-", 0) == 0 ? "partial" : s.name.c_str(), cols.c_str(),
                   static_cast<unsigned long long>(o.rounds), s.regret, s.mean_reward,
                   static_cast<unsigned long long>(j.result.same_actions),
                   static_cast<long long>(j.result.first_divergence), j.result.theta_norm_gap,
                   j.result.central_us, j.result.active_us, j.result.party_us,
                   static_cast<unsigned long long>(j.result.bytes_per_party),
                   j.result.best_fixed_item);
    }
  }
  std::fclose(f);
  // Mean and sd over the repeats of every series' regret curve.
  f = std::fopen((dir / "curves.csv").c_str(), "w");
  if (f == nullptr) return false;
  std::fprintf(f, "env,policy,series,round,regret_mean,regret_sd,runs\n");
  std::map<std::pair<std::string, std::string>, std::vector<const Job*>> by;
  for (const Job& j : jobs) {
    for (const Series& s : j.result.series) by[{policy_name(j.policy), s.name}].push_back(&j);
  }
  for (const auto& [key, list] : by) {
    const std::vector<uint64_t>& cps = list[0]->result.checkpoints;
    for (std::size_t c = 0; c < cps.size(); ++c) {
      std::vector<double> v;
      for (const Job* j : list) {
        for (const Series& s : j->result.series) {
          if (s.name == key.second) v.push_back(s.regret_at[c]);
        }
      }
      const Stats st = stats_of(v);
      std::fprintf(f, "%s,%s,%s,%llu,%.6f,%.6f,%zu\n", o.env.c_str(), key.first.c_str(),
                   key.second.c_str(), static_cast<unsigned long long>(cps[c]), st.mean, st.sd,
                   v.size());
    }
  }
  std::fclose(f);
  return true;
}

void print_summary(const Options& o, const std::vector<Job>& jobs) {
  for (const Policy p : o.policies) {
    std::map<std::string, std::vector<double>> regret;
    std::map<std::string, std::vector<double>> reward;
    std::vector<std::string> order;
    uint64_t same = 0;
    uint64_t total = 0;
    double central_us = 0.0;
    double active_us = 0.0;
    double party_us = 0.0;
    double fixed = 0.0;
    uint64_t bytes = 0;
    int runs = 0;
    for (const Job& j : jobs) {
      if (j.policy != p) continue;
      ++runs;
      same += j.result.same_actions;
      total += o.rounds;
      central_us += j.result.central_us;
      active_us += j.result.active_us;
      party_us += j.result.party_us;
      fixed += j.result.best_fixed_item;
      bytes = j.result.bytes_per_party;
      for (const Series& s : j.result.series) {
        if (regret.count(s.name) == 0) order.push_back(s.name);
        regret[s.name].push_back(s.regret);
        reward[s.name].push_back(s.mean_reward);
      }
    }
    if (runs == 0) continue;
    const Stats central = stats_of(regret["central"]);
    std::printf("\n%s, %d runs of %llu rounds:\n", policy_name(p), runs,
                static_cast<unsigned long long>(o.rounds));
    std::printf("  %-12s %18s %12s %10s %10s\n", "series", "regret (mean sd)", "mean reward",
                "/central", "-central");
    for (const std::string& name : order) {
      const Stats s = stats_of(regret[name]);
      std::printf("  %-12s %10.3f %7.3f %12.4f %10.2f %10.2f\n", name.c_str(), s.mean, s.sd,
                  stats_of(reward[name]).mean, central.mean > 0 ? s.mean / central.mean : 0.0,
                  s.mean - central.mean);
    }
    if (o.env == "multilabel") {
      std::printf("  best fixed item (majority label, in hindsight): mean reward %.4f\n",
                  fixed / runs);
    }
    std::printf("  federated took central's action in %llu of %llu rounds\n",
                static_cast<unsigned long long>(same), static_cast<unsigned long long>(total));
    std::printf(
        "  per round: central %.1f us; active party %.1f us; each passive party %.1f us "
        "masking, %llu bytes (P2BV)\n",
        central_us / runs, active_us / runs, party_us / runs,
        static_cast<unsigned long long>(bytes));
  }
}

int run_cost(const Options& o) {
  const std::filesystem::path dir(o.out_dir);
  FILE* f = std::fopen((dir / "cost.csv").c_str(), "w");
  if (f == nullptr) {
    std::fprintf(stderr, "p2b-sim: cannot write %s\n", (dir / "cost.csv").c_str());
    return 1;
  }
  std::fprintf(f,
               "d,k,parties,central_us,mask_us,seal_us,open_us,active_us,round_us,ratio,"
               "parallel_round_us,parallel_ratio,compute_round_us,compute_ratio,message_bytes,"
               "formula_bytes\n");
  std::printf("%5s %6s %3s %11s %9s %9s %9s %11s %11s %6s %8s %7s %11s\n", "d", "K", "M",
              "central-us", "mask-us", "seal-us", "open-us", "active-us", "round-us", "ratio",
              "parallel", "no-box", "bytes/party");
  const double total = static_cast<double>(o.cost_dims.size() * o.cost_items.size());
  double done = 0;
  for (const uint32_t d : o.cost_dims) {
    for (const uint32_t k : o.cost_items) {
      CostPoint c;
      std::string err;
      if (!measure_cost(d, k, o.cost_parties, o.cost_rounds, o.seed, &c, &err)) {
        std::fprintf(stderr, "p2b-sim: cost d=%u K=%u: %s\n", d, k, err.c_str());
        std::fclose(f);
        return 1;
      }
      const double ratio = c.round_us / c.central_us;
      const double parallel_ratio = c.parallel_round_us / c.central_us;
      const double compute_ratio = c.compute_round_us / c.central_us;
      std::fprintf(f, "%u,%u,%u,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.3f,%.2f,%.3f,%.2f,%.3f,%llu,%llu\n",
                   d, k, c.parties, c.central_us, c.mask_us, c.seal_us, c.open_us, c.active_us,
                   c.round_us, ratio, c.parallel_round_us, parallel_ratio, c.compute_round_us,
                   compute_ratio, static_cast<unsigned long long>(c.message_bytes),
                   static_cast<unsigned long long>(c.formula_bytes));
      std::printf("%5u %6u %3u %11.1f %9.1f %9.1f %9.1f %11.1f %11.1f %6.2f %8.2f %7.2f %11llu%s\n",
                  d, k, c.parties, c.central_us, c.mask_us, c.seal_us, c.open_us, c.active_us,
                  c.round_us, ratio, parallel_ratio, compute_ratio,
                  static_cast<unsigned long long>(c.message_bytes),
                  c.message_bytes == c.formula_bytes ? "" : "  (formula differs!)");
      if (!o.quiet) sim::progress("cost grid", ++done, total);
    }
  }
  std::fclose(f);
  return 0;
}

}  // namespace

int vertical_main(int argc, char** argv) {
  Options o;
  o.plot_script = P2B_PLOT_VERTICAL;
  const int parsed = parse_options(argc, argv, &o);
  if (parsed >= 0) return parsed;
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir, ec);
  if (ec) {
    std::fprintf(stderr, "p2b-sim: cannot create %s: %s\n", o.out_dir.c_str(),
                 ec.message().c_str());
    return 1;
  }
  if (o.cost) {
    const int st = run_cost(o);
    if (st == 0 && o.plot && !sim::plot_results(o.plot_script, o.out_dir)) return 1;
    return st;
  }
  std::vector<Job> jobs;
  for (const Policy p : o.policies) {
    for (uint32_t r = 0; r < o.repeats; ++r) jobs.push_back(Job{p, o.seed + r, {}, {}});
  }
  std::string setup_err;
  auto probe = make_world(o, o.seed, &setup_err);
  if (!probe) {
    std::fprintf(stderr, "p2b-sim: %s\n", setup_err.c_str());
    return 2;
  }
  // A partial model holds whole parties' blocks: the first parties whose
  // columns come closest to ratio * d. The active party alone always runs.
  std::vector<uint32_t> boundaries;
  uint32_t acc = 0;
  for (std::size_t j = 0; j + 1 < probe->partition().size(); ++j) {
    acc += probe->partition()[j];
    boundaries.push_back(acc);
  }
  const uint32_t local = boundaries[0];
  std::vector<uint32_t> partial_cols{local};
  for (const double ratio : o.partial) {
    uint32_t best = boundaries[0];
    for (const uint32_t b : boundaries) {
      if (std::fabs(b - ratio * probe->dim()) < std::fabs(best - ratio * probe->dim())) best = b;
    }
    if (std::find(partial_cols.begin(), partial_cols.end(), best) == partial_cols.end()) {
      partial_cols.push_back(best);
    }
  }
  std::printf("p2b-sim --protocol vertical: %s\n", probe->describe().c_str());
  std::printf("  d = %u, K = %u, M = %zu parties (blocks", probe->dim(), probe->items(),
              probe->partition().size());
  for (const uint32_t b : probe->partition()) std::printf(" %u", b);
  std::printf("), partial models on the first");
  for (const uint32_t c : partial_cols) std::printf(" %u", c);
  std::printf(" columns (%u: the active party alone)\n", local);
  std::printf(
      "  privacy: O3M obfuscates, it does not encrypt and gives no DP (epsilon = inf);\n"
      "  see docs/vertical.md for what the active party can infer\n");
  std::mutex mu;
  std::atomic<int> failed{0};
  std::string fail_msg;
  std::atomic<std::size_t> done{0};
  tools::parallel_for(jobs.size(), o.threads, [&](std::size_t i) {
    Job& j = jobs[i];
    std::string err;
    auto world = make_world(o, j.seed, &err);
    TrialSpec spec;
    spec.policy = j.policy;
    spec.beta = o.beta;
    spec.v = o.ts_scale;
    spec.tie = o.tie;
    spec.seed = j.seed;
    spec.rounds = o.rounds;
    spec.partial_columns = partial_cols;
    spec.checkpoint_every = std::max<uint64_t>(1, o.rounds / 100);
    if (!world || !run_trial(*world, spec, &j.result, &err)) {
      const std::lock_guard<std::mutex> lock(mu);
      failed = 1;
      fail_msg = err;
      return;
    }
    const std::size_t n = ++done;
    if (!o.quiet) {
      const std::lock_guard<std::mutex> lock(mu);
      sim::progress("vertical runs", static_cast<double>(n), static_cast<double>(jobs.size()));
    }
  });
  if (failed != 0) {
    std::fprintf(stderr, "p2b-sim: %s\n", fail_msg.c_str());
    return 1;
  }
  print_summary(o, jobs);
  if (!write_results(o, jobs)) {
    std::fprintf(stderr, "p2b-sim: cannot write into %s\n", o.out_dir.c_str());
    return 1;
  }
  std::printf("\nwrote %s/results.csv and curves.csv\n", o.out_dir.c_str());
  if (o.plot && !sim::plot_results(o.plot_script, o.out_dir)) return 1;
  return 0;
}

}  // namespace p2b::vertical
