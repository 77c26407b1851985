// The results of p2b-sim --protocol pfcb: runs.csv (one row per run),
// curves.csv (the mean and standard deviation over instances x runs of the
// regret per agent against rounds), summary.csv, ratios.csv (FRR and the
// ratios to FCB) and summary.json with the trends (Spearman rho of FRR
// against epsilon and of regret against n, and the linear fit's R^2).
#pragma once

#include <vector>

#include "pfcb_sim/options.hpp"
#include "pfcb_sim/run.hpp"

namespace p2b::pfcb_sim {

void write_results(const Options& o, const std::vector<RunResult>& runs);

// Spearman's rank correlation (average ranks for ties); 0 for fewer than 2
// points or a constant series.
double spearman(const std::vector<double>& x, const std::vector<double>& y);
// R^2 of the least-squares line through (x, y).
double linear_r2(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace p2b::pfcb_sim
