#include "fclub_sim/run_table.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

#include "sim/moments.hpp"

namespace p2b::fclub_sim {

namespace {

using sim::Moments;
using tools::Cell;
using tools::ResultTable;

int64_t as_int(uint64_t v) {
  return static_cast<int64_t>(v);
}

ResultTable runs_table(const Options& o, const std::vector<RunResult>& runs) {
  ResultTable t({"mode", "algorithm", "dim", "epsilon", "seed", "rounds", "regret", "uploads",
                 "downloads", "events", "bytes", "clusters", "epsilon_spent", "us_per_round",
                 "distinct_thetas"});
  for (const RunResult& x : runs) {
    t.add_row({o.mode, x.algorithm, as_int(x.dim), x.epsilon, as_int(x.seed), as_int(o.rounds),
               x.regret, as_int(x.comm.uploads), as_int(x.comm.downloads), as_int(x.comm.events),
               as_int(x.bytes), as_int(x.clusters), x.epsilon_spent, x.us_per_round,
               as_int(x.distinct_thetas)});
  }
  return t;
}

ResultTable curves_table(const Options& o, const std::vector<RunResult>& runs) {
  ResultTable t({"mode", "algorithm", "dim", "epsilon", "seed", "round", "cum_regret"});
  for (const RunResult& x : runs) {
    for (const auto& [round, regret] : x.curve) {
      t.add_row(
          {o.mode, x.algorithm, as_int(x.dim), x.epsilon, as_int(x.seed), as_int(round), regret});
    }
  }
  return t;
}

struct Group {
  Moments regret, uploads, downloads, events, bytes, clusters, us;
  double epsilon_max = 0.0;
  void add(const RunResult& x) {
    regret.add(x.regret);
    uploads.add(static_cast<double>(x.comm.uploads));
    downloads.add(static_cast<double>(x.comm.downloads));
    events.add(static_cast<double>(x.comm.events));
    bytes.add(static_cast<double>(x.bytes));
    clusters.add(x.clusters);
    us.add(x.us_per_round);
    epsilon_max = std::max(epsilon_max, x.epsilon_spent);
  }
};

ResultTable summary_table(const Options& o, const std::vector<RunResult>& runs) {
  using Key = std::tuple<uint32_t, double, std::string>;  // d, epsilon, algorithm
  std::map<Key, Group> groups;
  std::vector<Key> order;
  for (const RunResult& x : runs) {
    const Key k{x.dim, x.epsilon, x.algorithm};
    if (groups.find(k) == groups.end()) order.push_back(k);
    groups[k].add(x);
  }
  ResultTable t({"mode", "algorithm", "dim", "epsilon", "seeds", "regret_mean", "regret_sd",
                 "uploads_mean", "downloads_mean", "events_mean", "bytes_mean", "clusters_mean",
                 "epsilon_spent_max", "us_per_round_mean"});
  for (const Key& k : order) {
    const Group& g = groups[k];
    const auto& [dim, eps, name] = k;
    t.add_row({o.mode, name, as_int(dim), eps, static_cast<int64_t>(g.regret.n), g.regret.mean(),
               g.regret.sd(), g.uploads.mean(), g.downloads.mean(), g.events.mean(), g.bytes.mean(),
               g.clusters.mean(), g.epsilon_max, g.us.mean()});
  }
  return t;
}

double number(const Cell& c) {
  if (const auto* i = std::get_if<int64_t>(&c)) return static_cast<double>(*i);
  return std::get<double>(c);
}

}  // namespace

tools::ResultTables result_tables(const Options& o, const std::vector<RunResult>& runs) {
  return {{"runs", runs_table(o, runs)},
          {"curves", curves_table(o, runs)},
          {"summary", summary_table(o, runs)}};
}

std::vector<std::string> summary_lines(const tools::ResultTable& summary) {
  char line[256];
  std::snprintf(line, sizeof line, "%-13s %3s %5s %5s %10s %8s %9s %9s %11s %8s %7s %8s",
                "algorithm", "d", "eps", "seeds", "regret", "sd", "uploads", "downloads", "bytes",
                "clusters", "eps-sp", "us/round");
  std::vector<std::string> lines{line};
  for (const std::vector<Cell>& r : summary.rows()) {
    // Columns as summary_table() writes them: 1 algorithm, 2 dim, 3 epsilon,
    // 4 seeds, 5-6 regret, 7-8 traffic, 10 bytes, 11 clusters, 12 eps, 13 us.
    std::snprintf(line, sizeof line,
                  "%-13s %3.0f %5.2g %5.0f %10.1f %8.1f %9.0f %9.0f %11.0f %8.1f %7.3f %8.2f",
                  std::get<std::string>(r[1]).c_str(), number(r[2]), number(r[3]), number(r[4]),
                  number(r[5]), number(r[6]), number(r[7]), number(r[8]), number(r[10]),
                  number(r[11]), number(r[12]), number(r[13]));
    lines.emplace_back(line);
  }
  return lines;
}

}  // namespace p2b::fclub_sim
