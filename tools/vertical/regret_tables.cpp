// The regret runs' tables and printed summary (results.csv, curves.csv).
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "vertical/jobs.hpp"

namespace p2b::vertical {
namespace {

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

bool is_partial(const std::string& series) {
  return series.rfind("partial-", 0) == 0;
}

tools::ResultTable results_table(const Options& o, const std::vector<Job>& jobs) {
  tools::ResultTable t({"env", "policy", "seed", "series", "columns", "rounds", "regret",
                        "mean_reward", "same_actions", "first_divergence", "theta_norm_gap",
                        "central_us", "active_us", "party_us", "bytes_per_party",
                        "best_fixed_item"});
  for (const Job& j : jobs) {
    const TrialResult& r = j.result;
    for (const Series& s : r.series) {
      const bool partial = is_partial(s.name);
      t.add_row({o.env, j.policy, static_cast<int64_t>(j.seed), partial ? "partial" : s.name,
                 partial ? s.name.substr(8) : "", static_cast<int64_t>(o.rounds), s.regret,
                 s.mean_reward, static_cast<int64_t>(r.same_actions), r.first_divergence,
                 r.theta_norm_gap, r.central_us, r.active_us, r.party_us,
                 static_cast<int64_t>(r.bytes_per_party), r.best_fixed_item});
    }
  }
  return t;
}

// Mean and sd over the seeds of every series' regret curve.
tools::ResultTable curves_table(const Options& o, const std::vector<Job>& jobs) {
  tools::ResultTable t({"env", "policy", "series", "round", "regret_mean", "regret_sd", "runs"});
  std::map<std::pair<std::string, std::string>, std::vector<const Job*>> by;
  for (const Job& j : jobs) {
    for (const Series& s : j.result.series) by[{j.policy, s.name}].push_back(&j);
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
      t.add_row({o.env, key.first, key.second, static_cast<int64_t>(cps[c]), st.mean, st.sd,
                 static_cast<int64_t>(v.size())});
    }
  }
  return t;
}

// One policy's runs, summed for the printed summary.
struct PolicyTotals {
  std::map<std::string, std::vector<double>> regret, reward;
  std::vector<std::string> order;  // series in their first run's order
  uint64_t same = 0, total = 0, bytes = 0;
  double central_us = 0, active_us = 0, party_us = 0, fixed = 0;
  int runs = 0;
};

PolicyTotals totals_of(const Options& o, const std::vector<Job>& jobs, const std::string& p) {
  PolicyTotals t;
  for (const Job& j : jobs) {
    if (j.policy != p) continue;
    ++t.runs;
    t.same += j.result.same_actions;
    t.total += o.rounds;
    t.central_us += j.result.central_us;
    t.active_us += j.result.active_us;
    t.party_us += j.result.party_us;
    t.fixed += j.result.best_fixed_item;
    t.bytes = j.result.bytes_per_party;
    for (const Series& s : j.result.series) {
      if (t.regret.count(s.name) == 0) t.order.push_back(s.name);
      t.regret[s.name].push_back(s.regret);
      t.reward[s.name].push_back(s.mean_reward);
    }
  }
  return t;
}

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
  char b[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(b, sizeof b, fmt, ap);
  va_end(ap);
  return b;
}

void policy_lines(const Options& o, const std::string& p, const PolicyTotals& t,
                  std::vector<std::string>* out) {
  const Stats central = stats_of(t.regret.at("central"));
  out->push_back("");
  out->push_back(format("%s, %d runs of %llu rounds:", p.c_str(), t.runs,
                        static_cast<unsigned long long>(o.rounds)));
  out->push_back(format("  %-12s %18s %12s %10s %10s", "series", "regret (mean sd)", "mean reward",
                        "/central", "-central"));
  for (const std::string& name : t.order) {
    const Stats s = stats_of(t.regret.at(name));
    out->push_back(format("  %-12s %10.3f %7.3f %12.4f %10.2f %10.2f", name.c_str(), s.mean, s.sd,
                          stats_of(t.reward.at(name)).mean,
                          central.mean > 0 ? s.mean / central.mean : 0.0, s.mean - central.mean));
  }
  if (o.env == "multilabel") {
    out->push_back(format("  best fixed item (majority label, in hindsight): mean reward %.4f",
                          t.fixed / t.runs));
  }
  out->push_back(format("  federated took central's action in %llu of %llu rounds",
                        static_cast<unsigned long long>(t.same),
                        static_cast<unsigned long long>(t.total)));
  out->push_back(
      format("  per round: central %.1f us; active party %.1f us; each passive party %.1f us "
             "masking, %llu bytes (P2BV)",
             t.central_us / t.runs, t.active_us / t.runs, t.party_us / t.runs,
             static_cast<unsigned long long>(t.bytes)));
}

}  // namespace

tools::ResultTables regret_tables(const Options& o, const std::vector<Job>& jobs) {
  return {{"results", results_table(o, jobs)}, {"curves", curves_table(o, jobs)}};
}

std::vector<std::string> summary_lines(const Options& o, const std::vector<Job>& jobs) {
  std::vector<std::string> out;
  for (const std::string& p : o.policies) {
    const PolicyTotals t = totals_of(o, jobs, p);
    if (t.runs > 0) policy_lines(o, p, t, &out);
  }
  return out;
}

}  // namespace p2b::vertical
