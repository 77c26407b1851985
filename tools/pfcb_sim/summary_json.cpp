// The trends, the printed report and summary.json of p2b-sim --protocol
// pfcb, all from the grouped runs (run_table.hpp).
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "pfcb/wire/pfcb_wire.hpp"
#include "pfcb_sim/run_table.hpp"

namespace p2b::pfcb_sim {

namespace {

using Points = std::vector<std::pair<double, double>>;

void split(const Points& pts, Trend* t) {
  for (const auto& [a, b] : pts) {
    t->x.push_back(a);
    t->y.push_back(b);
  }
  t->spearman = spearman(t->x, t->y);
  t->r2 = linear_r2(t->x, t->y);
}

nlohmann::json number_or_null(double v) {
  return std::isnan(v) ? nlohmann::json() : nlohmann::json(v);
}

std::vector<std::string> summary_lines(const std::vector<Group>& groups) {
  char line[256];
  std::snprintf(line, sizeof line,
                "%-7s %3s %-15s %5s %5s %9s %8s %6s %7s %6s %9s %6s %6s %6s %6s %8s", "dist", "n",
                "algorithm", "eps", "runs", "regret", "sd", "met", "accept", "posts", "bytes/ag",
                "eps-pp", "eps-bc", "eps-el", "eps-sq", "s/run");
  std::vector<std::string> out{line};
  for (const Group& g : groups) {
    std::snprintf(line, sizeof line,
                  "%-7s %3u %-15s %5s %5.0f %9.1f %8.1f %6.4f %7.4f %6.1f %9.0f %6.3f %6.3f "
                  "%6.3f %6.3f %8.2f",
                  dist_name(g.dist), g.agents, g.algorithm.c_str(), eps_text(g.epsilon).c_str(),
                  g.regret.n, g.regret.mean(), g.regret.sd(), g.met.mean(), g.acceptance(),
                  g.sent.mean(), g.bytes_sent.mean() + g.bytes_received.mean(), g.paper_eps.mean(),
                  g.basic_eps.mean(), g.element_eps.mean(), g.sequential_eps.mean(),
                  g.seconds.mean());
    out.emplace_back(line);
  }
  return out;
}

std::vector<std::string> ratio_and_trend_lines(const std::vector<Group>& groups) {
  std::vector<std::string> out;
  char line[256];
  for (const Ratio& r : ratios(groups)) {
    if (out.empty()) {
      out.emplace_back("");
      std::snprintf(line, sizeof line, "%-7s %3s %-15s %5s %7s %8s %8s", "dist", "n", "algorithm",
                    "eps", "FRR", "x FCB", "NF/FCB");
      out.emplace_back(line);
    }
    const Group& g = *r.group;
    std::snprintf(line, sizeof line, "%-7s %3u %-15s %5s %7.3f %8.3f %8.3f", dist_name(g.dist),
                  g.agents, g.algorithm.c_str(), eps_text(g.epsilon).c_str(), r.frr, r.to_fcb,
                  r.nf_to_fcb);
    out.emplace_back(line);
  }
  for (const Trend& t : trends(groups)) {
    if (t.what == "frr_vs_epsilon") {
      std::snprintf(line, sizeof line,
                    "trend: FRR vs epsilon, %s n=%u %s: Spearman %.3f over %zu points",
                    dist_name(t.dist), t.agents, t.algorithm.c_str(), t.spearman, t.x.size());
    } else {
      std::snprintf(line, sizeof line,
                    "trend: regret vs n, %s %s eps=%s: Spearman %.3f, linear R^2 %.3f over %zu "
                    "points",
                    dist_name(t.dist), t.algorithm.c_str(), eps_text(t.epsilon).c_str(), t.spearman,
                    t.r2, t.x.size());
    }
    out.emplace_back(line);
  }
  return out;
}

// Run time per point (dist, n, epsilon): the CPU seconds of its runs.
std::vector<std::string> time_lines(const std::vector<RunResult>& runs) {
  std::map<std::tuple<int, uint32_t, double>, std::pair<double, uint32_t>> per_point;
  for (const RunResult& r : runs) {
    auto& p = per_point[{static_cast<int>(r.task.dist), r.task.agents, r.task.epsilon}];
    p.first += r.seconds;
    ++p.second;
  }
  std::vector<std::string> out{"", "time per point (CPU seconds of its runs):"};
  char line[256];
  for (const auto& [k, v] : per_point) {
    const double e = std::get<2>(k);
    const std::string eps = e == 0.0 ? "nf" : (std::isinf(e) ? "fcb" : eps_text(e));
    std::snprintf(line, sizeof line, "  %-7s n=%-3u eps=%-5s %8.1f s over %u runs (%.2f s a run)",
                  dist_name(static_cast<Dist>(std::get<0>(k))), std::get<1>(k), eps.c_str(),
                  v.first, v.second, v.first / v.second);
    out.emplace_back(line);
  }
  return out;
}

nlohmann::json settings_json(const Options& o) {
  const TeamSpec& t = o.team;
  return {{"producers", o.producers},
          {"instances", o.instances},
          {"runs", o.run.seeds},
          {"rounds", o.rounds},
          {"setting", o.homogeneous ? "homogeneous" : "heterogeneous"},
          {"alpha", o.alpha},
          {"delta", t.delta},
          {"window", {t.window_start, t.window_stop}},
          {"omega1", t.omega1},
          {"omega2", t.omega2},
          {"explore_rounds", t.explore_rounds},
          {"ucb_scale", t.ucb_scale},
          {"log_base", t.log_base == CmabLogBase::two ? "2" : "e"},
          {"violation_cost", o.violation == ViolationCost::optimum ? "optimum" : "max-regret"},
          {"public_max_capacity", t.public_max_capacity},
          {"posting_bytes", pfcb::posting_wire_size(o.producers)},
          {"seed", o.run.seed}};
}

nlohmann::json group_json(const Group& g) {
  return {{"dist", dist_name(g.dist)},
          {"agents", g.agents},
          {"algorithm", g.algorithm},
          {"epsilon", eps_text(g.epsilon)},
          {"count", g.regret.n},
          {"regret_mean", g.regret.mean()},
          {"regret_sd", g.regret.sd()},
          {"constraint_met", g.met.mean()},
          {"acceptance", g.acceptance()},
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
          {"seconds_per_run", g.seconds.mean()}};
}

nlohmann::json trend_json(const Trend& t) {
  nlohmann::json j{{"what", t.what}, {"dist", dist_name(t.dist)}};
  if (t.what == "frr_vs_epsilon") {
    j["agents"] = t.agents;
    j["algorithm"] = t.algorithm;
  } else {
    j["algorithm"] = t.algorithm;
    j["epsilon"] = eps_text(t.epsilon);
  }
  j["x"] = t.x;
  j["y"] = t.y;
  j["spearman"] = t.spearman;
  if (t.what != "frr_vs_epsilon") j["r2"] = t.r2;
  return j;
}

}  // namespace

std::vector<Trend> trends(const std::vector<Group>& groups) {
  std::map<std::tuple<int, uint32_t, std::string>, Points> by_eps;
  std::map<std::tuple<int, std::string, double>, Points> by_n;
  const std::vector<Ratio> rs = ratios(groups);
  for (const Group& g : groups) {
    by_n[{static_cast<int>(g.dist), g.algorithm, g.epsilon}].emplace_back(g.agents,
                                                                          g.regret.mean());
  }
  for (const Ratio& r : rs) {
    const Group& g = *r.group;
    if (g.algorithm == "fcb") continue;
    by_eps[{static_cast<int>(g.dist), g.agents, g.algorithm}].emplace_back(g.epsilon, r.frr);
  }
  std::vector<Trend> out;
  for (const auto& [k, pts] : by_eps) {
    if (pts.size() < 3) continue;
    Trend t{"frr_vs_epsilon",
            static_cast<Dist>(std::get<0>(k)),
            std::get<1>(k),
            std::get<2>(k),
            0.0,
            {},
            {},
            0.0,
            0.0};
    split(pts, &t);
    out.push_back(t);
  }
  for (const auto& [k, pts] : by_n) {
    if (pts.size() < 3) continue;
    Trend t{"regret_vs_agents",
            static_cast<Dist>(std::get<0>(k)),
            0,
            std::get<1>(k),
            std::get<2>(k),
            {},
            {},
            0.0,
            0.0};
    split(pts, &t);
    out.push_back(t);
  }
  return out;
}

std::vector<std::string> report_lines(const std::vector<RunResult>& runs) {
  const std::vector<Group> groups = group_runs(runs);
  std::vector<std::string> out = summary_lines(groups);
  for (std::vector<std::string> part : {ratio_and_trend_lines(groups), time_lines(runs)})
    out.insert(out.end(), part.begin(), part.end());
  return out;
}

nlohmann::json summary_json(const Options& o, const std::vector<RunResult>& runs) {
  const std::vector<Group> groups = group_runs(runs);
  nlohmann::json js;
  js["settings"] = settings_json(o);
  for (const Group& g : groups) js["groups"].push_back(group_json(g));
  for (const Ratio& r : ratios(groups)) {
    const Group& g = *r.group;
    js["ratios"].push_back({{"dist", dist_name(g.dist)},
                            {"agents", g.agents},
                            {"algorithm", g.algorithm},
                            {"epsilon", eps_text(g.epsilon)},
                            {"frr", number_or_null(r.frr)},
                            {"ratio_to_fcb", number_or_null(r.to_fcb)},
                            {"nf_to_fcb", number_or_null(r.nf_to_fcb)}});
  }
  for (const Trend& t : trends(groups)) js["trends"].push_back(trend_json(t));
  return js;
}

}  // namespace p2b::pfcb_sim
