#include "pfcb_sim/run_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>

namespace p2b::pfcb_sim {

namespace {

using tools::ResultTable;

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < idx.size();) {
    std::size_t k = i;
    while (k + 1 < idx.size() && v[idx[k + 1]] == v[idx[i]]) ++k;
    for (std::size_t q = i; q <= k; ++q) r[idx[q]] = (static_cast<double>(i + k) / 2.0) + 1.0;
    i = k + 1;
  }
  return r;
}

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n;
  const double my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0.0;
}

int64_t as_int(uint64_t v) {
  return static_cast<int64_t>(v);
}

ResultTable runs_table(const Options& o, const std::vector<RunResult>& runs) {
  ResultTable t({"dist",           "agents",          "algorithm",
                 "epsilon",        "instance",        "run",
                 "rounds",         "regret",          "constraint_met",
                 "optimum_reward", "postings_sent",   "postings_received",
                 "refused",        "accepted",        "rejected",
                 "bytes_sent",     "bytes_received",  "releases",
                 "paper_epsilon",  "paper_delta",     "basic_epsilon",
                 "basic_delta",    "element_epsilon", "sequential_epsilon",
                 "vector_epsilon", "seconds"});
  for (const RunResult& r : runs) {
    const Task& k = r.task;
    const CmabPrivacy& p = r.privacy;
    t.add_row({dist_name(k.dist),  as_int(k.agents),   k.algorithm,       k.epsilon,
               as_int(k.instance), as_int(k.run),      as_int(o.rounds),  r.regret,
               r.constraint_met,   r.optimum_reward,   r.postings_sent,   r.postings_received,
               r.refused,          r.accepted,         r.rejected,        r.bytes_sent,
               r.bytes_received,   as_int(p.releases), p.paper_epsilon,   p.paper_delta,
               p.basic_epsilon,    p.basic_delta,      p.element_epsilon, p.sequential_epsilon,
               p.vector_epsilon,   r.seconds});
  }
  return t;
}

// Every run's curve: medians and per-instance views need them (one
// instance can hold an agent that breaks the constraint in every round).
ResultTable curves_runs_table(uint64_t every, const std::vector<RunResult>& runs) {
  ResultTable t({"dist", "agents", "algorithm", "epsilon", "instance", "run", "round", "regret"});
  for (const RunResult& r : runs) {
    const Task& k = r.task;
    for (std::size_t p = 0; p < r.curve.size(); ++p) {
      t.add_row({dist_name(k.dist), as_int(k.agents), k.algorithm, k.epsilon, as_int(k.instance),
                 as_int(k.run), as_int((p + 1) * every), r.curve[p]});
    }
  }
  return t;
}

// Mean and sd over instances x runs at every recorded round.
ResultTable curves_table(uint64_t every, const std::vector<Group>& groups) {
  ResultTable t(
      {"dist", "agents", "algorithm", "epsilon", "round", "regret_mean", "regret_sd", "count"});
  for (const Group& g : groups) {
    for (std::size_t p = 0; p < g.runs.front()->curve.size(); ++p) {
      sim::Moments m;
      for (const RunResult* r : g.runs) m.add(r->curve[p]);
      t.add_row({dist_name(g.dist), as_int(g.agents), g.algorithm, g.epsilon,
                 as_int((p + 1) * every), m.mean(), m.sd(), static_cast<int64_t>(m.n)});
    }
  }
  return t;
}

ResultTable summary_table(const std::vector<Group>& groups) {
  ResultTable t({"dist",
                 "agents",
                 "algorithm",
                 "epsilon",
                 "count",
                 "regret_mean",
                 "regret_sd",
                 "constraint_met",
                 "acceptance",
                 "postings_sent",
                 "postings_received",
                 "bytes_sent",
                 "bytes_received",
                 "refused",
                 "releases",
                 "paper_epsilon",
                 "paper_delta",
                 "basic_epsilon",
                 "basic_delta",
                 "element_epsilon",
                 "sequential_epsilon",
                 "vector_epsilon",
                 "seconds_total",
                 "seconds_per_run"});
  for (const Group& g : groups) {
    t.add_row({dist_name(g.dist),
               as_int(g.agents),
               g.algorithm,
               g.epsilon,
               static_cast<int64_t>(g.regret.n),
               g.regret.mean(),
               g.regret.sd(),
               g.met.mean(),
               g.acceptance(),
               g.sent.mean(),
               g.received.mean(),
               g.bytes_sent.mean(),
               g.bytes_received.mean(),
               g.refused.mean(),
               as_int(g.releases),
               g.paper_eps.mean(),
               g.paper_delta.mean(),
               g.basic_eps.mean(),
               g.basic_delta.mean(),
               g.element_eps.mean(),
               g.sequential_eps.mean(),
               g.vector_eps.mean(),
               g.seconds.sum,
               g.seconds.mean()});
  }
  return t;
}

ResultTable ratios_table(const std::vector<Group>& groups) {
  ResultTable t({"dist", "agents", "algorithm", "epsilon", "frr", "ratio_to_fcb"});
  for (const Ratio& r : ratios(groups)) {
    const Group& g = *r.group;
    t.add_row({dist_name(g.dist), as_int(g.agents), g.algorithm, g.epsilon, r.frr, r.to_fcb});
  }
  return t;
}

}  // namespace

void Group::add(const RunResult& r) {
  runs.push_back(&r);
  regret.add(r.regret);
  met.add(r.constraint_met);
  optimum.add(r.optimum_reward);
  sent.add(r.postings_sent);
  received.add(r.postings_received);
  bytes_sent.add(r.bytes_sent);
  bytes_received.add(r.bytes_received);
  refused.add(r.refused);
  accepted += r.accepted;
  rejected += r.rejected;
  releases = std::max(releases, r.privacy.releases);
  paper_eps.add(r.privacy.paper_epsilon);
  paper_delta.add(r.privacy.paper_delta);
  basic_eps.add(r.privacy.basic_epsilon);
  basic_delta.add(r.privacy.basic_delta);
  element_eps.add(r.privacy.element_epsilon);
  sequential_eps.add(r.privacy.sequential_epsilon);
  vector_eps.add(r.privacy.vector_epsilon);
  seconds.add(r.seconds);
}

double Group::acceptance() const {
  return accepted + rejected > 0 ? accepted / (accepted + rejected) : 0.0;
}

std::vector<Group> group_runs(const std::vector<RunResult>& runs) {
  std::map<std::tuple<int, uint32_t, std::string, double>, std::size_t> index;
  std::vector<Group> groups;
  for (const RunResult& r : runs) {
    const Task& t = r.task;
    auto [it, fresh] =
        index.try_emplace({static_cast<int>(t.dist), t.agents, t.algorithm, t.epsilon}, 0);
    if (fresh) {
      it->second = groups.size();
      groups.push_back(Group{t.dist, t.agents, t.algorithm, t.epsilon});
    }
    groups[it->second].add(r);
  }
  return groups;
}

std::vector<Ratio> ratios(const std::vector<Group>& groups) {
  const auto mean_of = [&](Dist d, uint32_t n, const std::string& a) {
    for (const Group& g : groups) {
      if (g.dist == d && g.agents == n && g.algorithm == a) return g.regret.mean();
    }
    return std::nan("");
  };
  std::vector<Ratio> out;
  for (const Group& g : groups) {
    if (g.algorithm == "nf") continue;
    const double nf = mean_of(g.dist, g.agents, "nf"), fcb = mean_of(g.dist, g.agents, "fcb");
    out.push_back({&g, g.regret.mean() / nf, g.regret.mean() / fcb, nf / fcb});
  }
  return out;
}

std::string eps_text(double e) {
  if (e == 0.0) return "0";
  if (std::isinf(e)) return "inf";
  char b[32];
  std::snprintf(b, sizeof b, "%g", e);
  return b;
}

double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() < 2 || x.size() != y.size()) return 0.0;
  return pearson(ranks(x), ranks(y));
}

double linear_r2(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() < 2 || x.size() != y.size()) return 0.0;
  const double r = pearson(x, y);
  return r * r;
}

tools::ResultTables result_tables(const Options& o, const std::vector<RunResult>& runs) {
  const std::vector<Group> groups = group_runs(runs);
  const uint64_t every = curve_step(o);
  return {{"runs", runs_table(o, runs)},
          {"curves_runs", curves_runs_table(every, runs)},
          {"curves", curves_table(every, groups)},
          {"summary", summary_table(groups)},
          {"ratios", ratios_table(groups)}};
}

}  // namespace p2b::pfcb_sim
