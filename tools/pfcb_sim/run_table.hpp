// The results of p2b-sim --protocol pfcb: the tables "runs" (one row per
// run), "curves_runs" (every run's regret per agent against rounds),
// "curves" (their mean and standard deviation over instances x runs),
// "summary" (one row per dist, n, algorithm and epsilon) and "ratios" (FRR
// and the ratios to FCB), with the CSV files' column names; the trends
// (Spearman rho of FRR against epsilon and of regret against n, and the
// linear fit's R^2); and what p2b-sim prints and writes as summary.json.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/result_table.hpp"
#include "pfcb_sim/options.hpp"
#include "pfcb_sim/run.hpp"
#include "sim/moments.hpp"

namespace p2b::pfcb_sim {

// The runs of one (dist, n, algorithm, epsilon), in the order they came.
struct Group {
  Dist dist = Dist::normal;
  uint32_t agents = 0;
  std::string algorithm;
  double epsilon = 0.0;
  std::vector<const RunResult*> runs;
  sim::Moments regret, met, sent, received, bytes_sent, bytes_received, refused, paper_eps,
      paper_delta, basic_eps, basic_delta, element_eps, sequential_eps, vector_eps, seconds,
      optimum;
  double accepted = 0, rejected = 0;
  uint32_t releases = 0;

  void add(const RunResult& r);
  // Accepted producer reports over all reports; 0 when there were none.
  double acceptance() const;
};

// Groups in the order each first appears in `runs`.
std::vector<Group> group_runs(const std::vector<RunResult>& runs);

// Per P-FCB group: FRR = R / R_nf and R / R_fcb (ratios of means; nan
// without the nf or fcb group of the same dist and n).
struct Ratio {
  const Group* group;
  double frr, to_fcb, nf_to_fcb;
};
std::vector<Ratio> ratios(const std::vector<Group>& groups);

// FRR against epsilon per (dist, n, algorithm) and regret against n per
// (dist, algorithm, epsilon), where the grid has at least 3 points.
struct Trend {
  std::string what;  // frr_vs_epsilon or regret_vs_agents
  Dist dist;
  uint32_t agents;  // frr_vs_epsilon only
  std::string algorithm;
  double epsilon;  // regret_vs_agents only
  std::vector<double> x, y;
  double spearman, r2;
};
std::vector<Trend> trends(const std::vector<Group>& groups);

// nf and fcb carry epsilon 0 and infinity: "0", "inf", else %g.
std::string eps_text(double e);

// {"runs", "curves_runs", "curves", "summary", "ratios"}; `o` must be the
// options the runs were made with.
tools::ResultTables result_tables(const Options& o, const std::vector<RunResult>& runs);

// The summary, ratios, trends and time per point as p2b-sim prints them.
std::vector<std::string> report_lines(const std::vector<RunResult>& runs);

// summary.json: the settings, every group, the ratios and the trends.
nlohmann::json summary_json(const Options& o, const std::vector<RunResult>& runs);

// Spearman's rank correlation (average ranks for ties); 0 for fewer than 2
// points or a constant series.
double spearman(const std::vector<double>& x, const std::vector<double>& y);
// R^2 of the least-squares line through (x, y).
double linear_r2(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace p2b::pfcb_sim
