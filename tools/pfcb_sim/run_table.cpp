#include "pfcb_sim/run_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <tuple>

#include "pfcb/wire/pfcb_wire.hpp"
#include "sim/moments.hpp"

namespace p2b::pfcb_sim {

namespace {

using sim::Moments;

// nf and fcb carry epsilon 0 and infinity; both print as a word.
std::string eps_text(double e) {
  if (e == 0.0) return "0";
  if (std::isinf(e)) return "inf";
  char b[32];
  std::snprintf(b, sizeof b, "%g", e);
  return b;
}

using Key = std::tuple<int, uint32_t, std::string, double>;  // dist, n, algorithm, epsilon

struct Group {
  Key key;
  std::vector<const RunResult*> runs;
  Moments regret, met, sent, received, bytes_sent, bytes_received, refused, paper_eps, paper_delta,
      basic_eps, basic_delta, element_eps, sequential_eps, vector_eps, seconds, optimum;
  double accepted = 0, rejected = 0;
  uint32_t releases = 0;
};

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

}  // namespace

double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() < 2 || x.size() != y.size()) return 0.0;
  return pearson(ranks(x), ranks(y));
}

double linear_r2(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() < 2 || x.size() != y.size()) return 0.0;
  const double r = pearson(x, y);
  return r * r;
}

void write_results(const Options& o, const std::vector<RunResult>& runs) {
  std::ofstream rc(o.out_dir + "/runs.csv");
  rc << "dist,agents,algorithm,epsilon,instance,run,rounds,regret,constraint_met,optimum_reward,"
        "postings_sent,postings_received,refused,accepted,rejected,bytes_sent,bytes_received,"
        "releases,paper_epsilon,paper_delta,basic_epsilon,basic_delta,element_epsilon,"
        "sequential_epsilon,vector_epsilon,seconds\n";
  std::map<Key, Group> groups;
  std::vector<Key> order;
  for (const RunResult& r : runs) {
    const Task& t = r.task;
    rc << dist_name(t.dist) << ',' << t.agents << ',' << t.algorithm << ',' << eps_text(t.epsilon)
       << ',' << t.instance << ',' << t.run << ',' << o.rounds << ',' << r.regret << ','
       << r.constraint_met << ',' << r.optimum_reward << ',' << r.postings_sent << ','
       << r.postings_received << ',' << r.refused << ',' << r.accepted << ',' << r.rejected << ','
       << r.bytes_sent << ',' << r.bytes_received << ',' << r.privacy.releases << ','
       << r.privacy.paper_epsilon << ',' << r.privacy.paper_delta << ',' << r.privacy.basic_epsilon
       << ',' << r.privacy.basic_delta << ',' << r.privacy.element_epsilon << ','
       << r.privacy.sequential_epsilon << ',' << r.privacy.vector_epsilon << ',' << r.seconds
       << '\n';
    const Key k{static_cast<int>(t.dist), t.agents, t.algorithm, t.epsilon};
    auto [it, fresh] = groups.try_emplace(k);
    if (fresh) order.push_back(k);
    Group& g = it->second;
    g.key = k;
    g.runs.push_back(&r);
    g.regret.add(r.regret);
    g.met.add(r.constraint_met);
    g.optimum.add(r.optimum_reward);
    g.sent.add(r.postings_sent);
    g.received.add(r.postings_received);
    g.bytes_sent.add(r.bytes_sent);
    g.bytes_received.add(r.bytes_received);
    g.refused.add(r.refused);
    g.accepted += r.accepted;
    g.rejected += r.rejected;
    g.releases = std::max(g.releases, r.privacy.releases);
    g.paper_eps.add(r.privacy.paper_epsilon);
    g.paper_delta.add(r.privacy.paper_delta);
    g.basic_eps.add(r.privacy.basic_epsilon);
    g.basic_delta.add(r.privacy.basic_delta);
    g.element_eps.add(r.privacy.element_epsilon);
    g.sequential_eps.add(r.privacy.sequential_epsilon);
    g.vector_eps.add(r.privacy.vector_epsilon);
    g.seconds.add(r.seconds);
  }

  // Every run's curve too: medians and per-instance views need them (one
  // instance can hold an agent that breaks the constraint in every round).
  std::ofstream cr(o.out_dir + "/curves_runs.csv");
  cr << "dist,agents,algorithm,epsilon,instance,run,round,regret\n";
  for (const RunResult& r : runs) {
    const Task& t = r.task;
    for (std::size_t p = 0; p < r.curve.size(); ++p) {
      cr << dist_name(t.dist) << ',' << t.agents << ',' << t.algorithm << ',' << eps_text(t.epsilon)
         << ',' << t.instance << ',' << t.run << ',' << (p + 1) * o.every << ',' << r.curve[p]
         << '\n';
    }
  }

  // Curves: mean and sd over instances x runs at every recorded round.
  std::ofstream cc(o.out_dir + "/curves.csv");
  cc << "dist,agents,algorithm,epsilon,round,regret_mean,regret_sd,count\n";
  for (const Key& k : order) {
    const Group& g = groups[k];
    const std::size_t points = g.runs.front()->curve.size();
    for (std::size_t p = 0; p < points; ++p) {
      Moments m;
      for (const RunResult* r : g.runs) m.add(r->curve[p]);
      cc << dist_name(static_cast<Dist>(std::get<0>(k))) << ',' << std::get<1>(k) << ','
         << std::get<2>(k) << ',' << eps_text(std::get<3>(k)) << ',' << (p + 1) * o.every << ','
         << m.mean() << ',' << m.sd() << ',' << m.n << '\n';
    }
  }

  nlohmann::json js;
  js["settings"] = {
      {"producers", o.producers},
      {"instances", o.instances},
      {"runs", o.runs},
      {"rounds", o.rounds},
      {"setting", o.homogeneous ? "homogeneous" : "heterogeneous"},
      {"alpha", o.alpha},
      {"delta", o.team.delta},
      {"window", {o.team.window_start, o.team.window_stop}},
      {"omega1", o.team.omega1},
      {"omega2", o.team.omega2},
      {"explore_rounds", o.team.explore_rounds},
      {"ucb_scale", o.team.ucb_scale},
      {"log_base", o.team.log_base == CmabLogBase::two ? "2" : "e"},
      {"violation_cost", o.violation == ViolationCost::optimum ? "optimum" : "max-regret"},
      {"public_max_capacity", o.team.public_max_capacity},
      {"posting_bytes", pfcb::posting_wire_size(o.producers)},
      {"seed", o.seed}};
  std::ofstream sc(o.out_dir + "/summary.csv");
  sc << "dist,agents,algorithm,epsilon,count,regret_mean,regret_sd,constraint_met,acceptance,"
        "postings_sent,postings_received,bytes_sent,bytes_received,refused,releases,"
        "paper_epsilon,paper_delta,basic_epsilon,basic_delta,element_epsilon,sequential_epsilon,"
        "vector_epsilon,seconds_total,seconds_per_run\n";
  std::printf("%-7s %3s %-15s %5s %5s %9s %8s %6s %7s %6s %9s %6s %6s %6s %6s %8s\n", "dist", "n",
              "algorithm", "eps", "runs", "regret", "sd", "met", "accept", "posts", "bytes/ag",
              "eps-pp", "eps-bc", "eps-el", "eps-sq", "s/run");
  for (const Key& k : order) {
    const Group& g = groups[k];
    const double acc = g.accepted + g.rejected > 0 ? g.accepted / (g.accepted + g.rejected) : 0.0;
    const std::string d = dist_name(static_cast<Dist>(std::get<0>(k)));
    const std::string eps = eps_text(std::get<3>(k));
    sc << d << ',' << std::get<1>(k) << ',' << std::get<2>(k) << ',' << eps << ',' << g.regret.n
       << ',' << g.regret.mean() << ',' << g.regret.sd() << ',' << g.met.mean() << ',' << acc << ','
       << g.sent.mean() << ',' << g.received.mean() << ',' << g.bytes_sent.mean() << ','
       << g.bytes_received.mean() << ',' << g.refused.mean() << ',' << g.releases << ','
       << g.paper_eps.mean() << ',' << g.paper_delta.mean() << ',' << g.basic_eps.mean() << ','
       << g.basic_delta.mean() << ',' << g.element_eps.mean() << ',' << g.sequential_eps.mean()
       << ',' << g.vector_eps.mean() << ',' << g.seconds.sum << ',' << g.seconds.mean() << '\n';
    std::printf(
        "%-7s %3u %-15s %5s %5.0f %9.1f %8.1f %6.4f %7.4f %6.1f %9.0f %6.3f %6.3f %6.3f %6.3f "
        "%8.2f\n",
        d.c_str(), std::get<1>(k), std::get<2>(k).c_str(), eps.c_str(), g.regret.n, g.regret.mean(),
        g.regret.sd(), g.met.mean(), acc, g.sent.mean(),
        g.bytes_sent.mean() + g.bytes_received.mean(), g.paper_eps.mean(), g.basic_eps.mean(),
        g.element_eps.mean(), g.sequential_eps.mean(), g.seconds.mean());
    js["groups"].push_back({{"dist", d},
                            {"agents", std::get<1>(k)},
                            {"algorithm", std::get<2>(k)},
                            {"epsilon", eps},
                            {"count", g.regret.n},
                            {"regret_mean", g.regret.mean()},
                            {"regret_sd", g.regret.sd()},
                            {"constraint_met", g.met.mean()},
                            {"acceptance", acc},
                            {"optimum_reward", g.optimum.mean()},
                            {"postings_sent", g.sent.mean()},
                            {"postings_received", g.received.mean()},
                            {"bytes_sent", g.bytes_sent.mean()},
                            {"bytes_received", g.bytes_received.mean()},
                            {"refused", g.refused.mean()},
                            {"releases", g.releases},
                            {"paper_epsilon", g.paper_eps.mean()},
                            {"paper_delta", g.paper_delta.mean()},
                            {"basic_epsilon", g.basic_eps.mean()},
                            {"basic_delta", g.basic_delta.mean()},
                            {"element_epsilon", g.element_eps.mean()},
                            {"sequential_epsilon", g.sequential_eps.mean()},
                            {"vector_epsilon", g.vector_eps.mean()},
                            {"seconds_total", g.seconds.sum},
                            {"seconds_per_run", g.seconds.mean()}});
  }

  // Ratios per (dist, n): FRR = R / R_nf, and R / R_fcb, ratios of means.
  std::ofstream rt(o.out_dir + "/ratios.csv");
  rt << "dist,agents,algorithm,epsilon,frr,ratio_to_fcb\n";
  auto mean_of = [&](int d, uint32_t n, const std::string& a) -> double {
    const double e = a == "nf" ? 0.0 : std::numeric_limits<double>::infinity();
    auto it = groups.find(Key{d, n, a, e});
    return it == groups.end() ? std::nan("") : it->second.regret.mean();
  };
  bool header = false;
  for (const Key& k : order) {
    const auto& [d, n, a, e] = k;
    if (a == "nf") continue;
    const double nf = mean_of(d, n, "nf"), fcb = mean_of(d, n, "fcb");
    const double mean = groups[k].regret.mean();
    const double frr = mean / nf, to_fcb = mean / fcb;
    rt << dist_name(static_cast<Dist>(d)) << ',' << n << ',' << a << ',' << eps_text(e) << ','
       << frr << ',' << to_fcb << '\n';
    if (!header) {
      std::printf("\n%-7s %3s %-15s %5s %7s %8s %8s\n", "dist", "n", "algorithm", "eps", "FRR",
                  "x FCB", "NF/FCB");
      header = true;
    }
    std::printf("%-7s %3u %-15s %5s %7.3f %8.3f %8.3f\n", dist_name(static_cast<Dist>(d)), n,
                a.c_str(), eps_text(e).c_str(), frr, to_fcb, nf / fcb);
    js["ratios"].push_back(
        {{"dist", dist_name(static_cast<Dist>(d))},
         {"agents", n},
         {"algorithm", a},
         {"epsilon", eps_text(e)},
         {"frr", std::isnan(frr) ? nlohmann::json() : nlohmann::json(frr)},
         {"ratio_to_fcb", std::isnan(to_fcb) ? nlohmann::json() : nlohmann::json(to_fcb)},
         {"nf_to_fcb", std::isnan(nf / fcb) ? nlohmann::json() : nlohmann::json(nf / fcb)}});
  }

  // Trends: FRR against epsilon per (dist, n, algorithm), regret against n
  // per (dist, algorithm, epsilon), where the grid has at least 3 points.
  std::map<std::tuple<int, uint32_t, std::string>, std::vector<std::pair<double, double>>> by_eps;
  std::map<std::tuple<int, std::string, double>, std::vector<std::pair<double, double>>> by_n;
  for (const Key& k : order) {
    const auto& [d, n, a, e] = k;
    const double mean = groups[k].regret.mean();
    by_n[{d, a, e}].emplace_back(n, mean);
    if (a != "nf" && a != "fcb") by_eps[{d, n, a}].emplace_back(e, mean / mean_of(d, n, "nf"));
  }
  for (const auto& [k, pts] : by_eps) {
    if (pts.size() < 3) continue;
    std::vector<double> x, y;
    for (const auto& [a, b] : pts) {
      x.push_back(a);
      y.push_back(b);
    }
    const double rho = spearman(x, y);
    std::printf("trend: FRR vs epsilon, %s n=%u %s: Spearman %.3f over %zu points\n",
                dist_name(static_cast<Dist>(std::get<0>(k))), std::get<1>(k),
                std::get<2>(k).c_str(), rho, x.size());
    js["trends"].push_back({{"what", "frr_vs_epsilon"},
                            {"dist", dist_name(static_cast<Dist>(std::get<0>(k)))},
                            {"agents", std::get<1>(k)},
                            {"algorithm", std::get<2>(k)},
                            {"x", x},
                            {"y", y},
                            {"spearman", rho}});
  }
  for (const auto& [k, pts] : by_n) {
    if (pts.size() < 3) continue;
    std::vector<double> x, y;
    for (const auto& [a, b] : pts) {
      x.push_back(a);
      y.push_back(b);
    }
    const double rho = spearman(x, y), r2 = linear_r2(x, y);
    std::printf(
        "trend: regret vs n, %s %s eps=%s: Spearman %.3f, linear R^2 %.3f over %zu points\n",
        dist_name(static_cast<Dist>(std::get<0>(k))), std::get<1>(k).c_str(),
        eps_text(std::get<2>(k)).c_str(), rho, r2, x.size());
    js["trends"].push_back({{"what", "regret_vs_agents"},
                            {"dist", dist_name(static_cast<Dist>(std::get<0>(k)))},
                            {"algorithm", std::get<1>(k)},
                            {"epsilon", eps_text(std::get<2>(k))},
                            {"x", x},
                            {"y", y},
                            {"spearman", rho},
                            {"r2", r2}});
  }
  std::ofstream(o.out_dir + "/summary.json") << js.dump(2) << '\n';
}

}  // namespace p2b::pfcb_sim
