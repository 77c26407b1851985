// A small p2b-sim --protocol compare --spends run (run_compare()): every private protocol's
// own ledger must report the targeted epsilon per user over the horizon, and
// the knobs behind them must differ from the targets (the knob is not the
// spend).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "compare_sim/knob_solver.hpp"
#include "compare_sim/run.hpp"

namespace p2b::compare_sim {
namespace {

// The summary table of a small --spends run, as text cells by column name.
using Table = std::vector<std::map<std::string, std::string>>;

std::string text(const tools::Cell& c) {
  if (const auto* d = std::get_if<double>(&c)) return std::isinf(*d) ? "inf" : std::to_string(*d);
  if (const auto* i = std::get_if<int64_t>(&c)) return std::to_string(*i);
  return std::get<std::string>(c);
}

Table run_compare(const std::vector<double>& spends) {
  Options o;
  o.envs = {"synthetic"};
  o.users = 40;
  o.run.seeds = 1;
  o.dim = 2;
  o.actions = 2;
  o.beta = 1;
  o.servers = 2;
  o.codes = 4;
  o.interactions = 6;
  o.spends = spends;
  const CompareRun r = run_compare(o, {});
  EXPECT_TRUE(r.spends_ok);
  const tools::ResultTable& sum = r.tables.at("summary");
  Table rows;
  for (const auto& cells : sum.rows()) {
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < cells.size(); ++i) row[sum.columns()[i]] = text(cells[i]);
    rows.push_back(row);
  }
  return rows;
}

TEST(CompareSpends, EveryLedgerReportsItsTarget) {
  const Table rows = run_compare({0.5, 4});
  std::map<std::string, int> seen;
  for (const auto& r : rows) {
    const std::string& p = r.at("protocol");
    const double target = std::stod(r.at("target"));
    if (target == 0.0) continue;
    ++seen[p];
    const double spent = std::stod(r.at("user_epsilon"));
    const double knob = std::stod(r.at("knob"));
    EXPECT_NEAR(spent, target, target * kSpendTolerance) << p << " at " << target;
    EXPECT_NEAR(std::stod(r.at("formula_epsilon")), target, target * kSpendTolerance) << p;
    EXPECT_LE(std::stod(r.at("user_delta")), 1e-5 * (1 + 1e-9)) << p << " at " << target;
    EXPECT_GT(knob, 0.0) << p;
    // The knob is not the spend for any protocol here.
    EXPECT_GT(std::fabs(knob - target), 0.01) << p << " at " << target;
  }
  EXPECT_EQ(seen["p2b"], 2);
  EXPECT_EQ(seen["fclub"], 2);
  EXPECT_EQ(seen["pfcb"], 2);
  // O3M is stated as what it is: no DP.
  bool o3m = false;
  for (const auto& r : rows) {
    if (r.at("protocol") != "o3m") continue;
    o3m = true;
    EXPECT_EQ(r.at("user_epsilon"), "inf");
  }
  EXPECT_TRUE(o3m);
}

}  // namespace
}  // namespace p2b::compare_sim
