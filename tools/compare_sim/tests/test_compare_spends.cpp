// A small p2b-sim --protocol compare --spends run: every private protocol's
// own ledger must report the targeted epsilon per user over the horizon, and
// the knobs behind them must differ from the targets (the knob is not the
// spend).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "compare_sim/compare_main.hpp"
#include "compare_sim/knob_solver.hpp"

namespace p2b::compare_sim {
namespace {

namespace fs = std::filesystem;

using Table = std::vector<std::map<std::string, std::string>>;

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) out.push_back(cell);
  return out;
}

Table read_csv(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> head = split(line);
  Table rows;
  while (std::getline(in, line)) {
    const std::vector<std::string> cells = split(line);
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < head.size() && i < cells.size(); ++i) row[head[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

int run_compare(const fs::path& out, const std::string& spends) {
  std::vector<std::string> args{"p2b-sim",   "--protocol", "compare", "--envs",  "synthetic",
                                "--users",   "40",         "--seeds", "1",       "--dim",
                                "2",         "--actions",  "2",       "--beta",  "1",
                                "--servers", "2",          "--codes", "4",       "--interactions",
                                "6",         "--spends",   spends,    "--quiet", "--out",
                                out.string()};
  std::vector<char*> argv;
  argv.reserve(args.size());
  for (std::string& a : args) argv.push_back(a.data());
  return compare_main(static_cast<int>(argv.size()), argv.data());
}

TEST(CompareSpends, EveryLedgerReportsItsTarget) {
  const fs::path dir = fs::path(P2B_TEST_TMP) / "spends";
  fs::remove_all(dir);
  ASSERT_EQ(run_compare(dir, "0.5,4"), 0);
  const Table rows = read_csv(dir / "summary.csv");
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
