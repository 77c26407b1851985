#include "fclub_sim/run_table.hpp"
#include "sim/moments.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <tuple>

namespace p2b::fclub_sim {

namespace {

using sim::Moments;

}  // namespace

void write_runs(const Options& o, const std::vector<RunResult>& runs) {
  std::ofstream r(o.out_dir + "/runs.csv");
  r << "mode,algorithm,dim,epsilon,seed,rounds,regret,uploads,downloads,events,bytes,clusters,"
       "epsilon_spent,us_per_round,distinct_thetas\n";
  std::ofstream c(o.out_dir + "/curves.csv");
  c << "mode,algorithm,dim,epsilon,seed,round,cum_regret\n";
  for (const RunResult& x : runs) {
    r << o.mode << ',' << x.algorithm << ',' << x.dim << ',' << x.epsilon << ',' << x.seed << ','
      << o.rounds << ',' << x.regret << ',' << x.comm.uploads << ',' << x.comm.downloads << ','
      << x.comm.events << ',' << x.bytes << ',' << x.clusters << ',' << x.epsilon_spent << ','
      << x.us_per_round << ',' << x.distinct_thetas << '\n';
    for (const auto& [t, v] : x.curve) {
      c << o.mode << ',' << x.algorithm << ',' << x.dim << ',' << x.epsilon << ',' << x.seed << ','
        << t << ',' << v << '\n';
    }
  }
}

void print_summary(const Options& o, const std::vector<RunResult>& runs) {
  using Key = std::tuple<uint32_t, double, std::string>;
  std::map<Key, std::vector<const RunResult*>> groups;
  std::vector<Key> order;
  for (const RunResult& x : runs) {
    const Key k{x.dim, x.epsilon, x.algorithm};
    if (groups.find(k) == groups.end()) order.push_back(k);
    groups[k].push_back(&x);
  }
  std::ofstream s(o.out_dir + "/summary.csv");
  s << "mode,algorithm,dim,epsilon,seeds,regret_mean,regret_sd,uploads_mean,downloads_mean,"
       "events_mean,bytes_mean,clusters_mean,epsilon_spent_max,us_per_round_mean\n";
  std::printf("%-13s %3s %5s %5s %10s %8s %9s %9s %11s %8s %7s %8s\n", "algorithm", "d", "eps",
              "seeds", "regret", "sd", "uploads", "downloads", "bytes", "clusters", "eps-sp",
              "us/round");
  for (const Key& k : order) {
    Moments reg, up, down, ev, bytes, cl, us;
    double eps_max = 0.0;
    for (const RunResult* x : groups[k]) {
      reg.add(x->regret);
      up.add(static_cast<double>(x->comm.uploads));
      down.add(static_cast<double>(x->comm.downloads));
      ev.add(static_cast<double>(x->comm.events));
      bytes.add(static_cast<double>(x->bytes));
      cl.add(x->clusters);
      us.add(x->us_per_round);
      eps_max = std::max(eps_max, x->epsilon_spent);
    }
    const auto& [dim, eps, name] = k;
    std::printf("%-13s %3u %5.2g %5.0f %10.1f %8.1f %9.0f %9.0f %11.0f %8.1f %7.3f %8.2f\n",
                name.c_str(), dim, eps, reg.n, reg.mean(), reg.sd(), up.mean(), down.mean(),
                bytes.mean(), cl.mean(), eps_max, us.mean());
    s << o.mode << ',' << name << ',' << dim << ',' << eps << ',' << reg.n << ',' << reg.mean()
      << ',' << reg.sd() << ',' << up.mean() << ',' << down.mean() << ',' << ev.mean() << ','
      << bytes.mean() << ',' << cl.mean() << ',' << eps_max << ',' << us.mean() << '\n';
  }
}

}  // namespace p2b::fclub_sim
