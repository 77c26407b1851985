// p2b-sim --protocol vertical as a library: validate() names each bounded
// field by its flag, run() is deterministic under a seed and returns the
// documented tables, and the CLI writes exactly what run() returns.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "cli/result_table.hpp"
#include "cli/run_hooks.hpp"
#include "cli/tests/csv_without_columns.hpp"
#include "vertical/options.hpp"
#include "vertical/run.hpp"
#include "vertical/vertical_main.hpp"

namespace p2b::vertical {
namespace {

namespace fs = std::filesystem;

Options tiny() {
  Options o;
  o.dim = 8;
  o.actions = 4;
  o.partition = {3, 5};
  o.rounds = 60;
  o.run.seeds = 2;
  o.run.seed = 7;
  o.run.threads = 1;
  o.policies = {"linucb"};
  return o;
}

// The message for `o` with one field broken names that field's flag.
void expect_names(const Options& o, const std::string& flag) {
  const std::string why = validate(o);
  EXPECT_EQ(why.rfind(flag, 0), 0U) << why;
  EXPECT_THROW(run(o, {}), std::invalid_argument) << flag;
}

TEST(VerticalOptions, ValidateNamesTheField) {
  EXPECT_EQ(validate(tiny()), "");
  Options o = tiny();
  o.rounds = 0;
  EXPECT_EQ(validate(o), "--rounds = 0: must be in [1, 100000000]");
  const auto broken = [](auto change) {
    Options b = tiny();
    change(b);
    return b;
  };
  expect_names(broken([](Options& b) { b.env = "tabular"; }), "--env");
  expect_names(broken([](Options& b) { b.run.seeds = 0; }), "--seeds");
  expect_names(broken([](Options& b) { b.run.threads = 0; }), "--threads");
  expect_names(broken([](Options& b) { b.dim = 1; }), "--dim");
  expect_names(broken([](Options& b) { b.actions = 0; }), "--actions");
  expect_names(broken([](Options& b) { b.beta = -1; }), "--beta");
  expect_names(broken([](Options& b) { b.ts_scale = -1; }), "--ts-scale");
  expect_names(broken([](Options& b) { b.noise_sd = 11; }), "--noise-sd");
  expect_names(broken([](Options& b) { b.tie = 1; }), "--tie");
  expect_names(broken([](Options& b) { b.parties = 1; }), "--parties");
  expect_names(broken([](Options& b) { b.components = 0; }), "--components");
  expect_names(broken([](Options& b) { b.cost_parties = 1; }), "--cost-parties");
  expect_names(broken([](Options& b) { b.cost_rounds = 0; }), "--cost-rounds");
  expect_names(broken([](Options& b) { b.partition = {3, 4}; }), "--partition");
  expect_names(broken([](Options& b) { b.partial = {1.5}; }), "--partial");
  expect_names(broken([](Options& b) { b.cost_dims = {1}; }), "--cost-dims");
  expect_names(broken([](Options& b) { b.cost_actions = {0}; }), "--cost-actions");
  expect_names(broken([](Options& b) { b.policies = {"ucb"}; }), "--policies");
  expect_names(broken([](Options& b) { b.env = "multilabel"; }), "--data");
}

TEST(VerticalRun, DeterministicUnderASeedWithTheDocumentedTables) {
  std::vector<std::string> said;
  uint64_t last_done = 0, last_total = 0;
  tools::RunHooks hooks;
  hooks.log = [&](const std::string& line) { said.push_back(line); };
  hooks.progress = [&](const std::string&, uint64_t done, uint64_t total) {
    last_done = done;
    last_total = total;
  };
  const tools::ResultTables a = run(tiny(), hooks);
  ASSERT_EQ(a.size(), 2U);
  const tools::ResultTable& results = a.at("results");
  EXPECT_EQ(results.columns().front(), "env");
  EXPECT_EQ(results.columns().at(6), "regret");
  // central, federated and two partial models (3 columns; the nearest to
  // 0.8 * 8 is also 3) for each of 2 seeds: 3 series x 2.
  EXPECT_EQ(results.n_rows(), 6U);
  EXPECT_EQ(a.at("curves").columns().at(4), "regret_mean");
  EXPECT_EQ(last_done, 2U);
  EXPECT_EQ(last_total, 2U);
  bool matched = false;
  for (const std::string& l : said) matched |= l.find("central's action in 120 of 120") != l.npos;
  EXPECT_TRUE(matched);
  const tools::ResultTables b = run(tiny(), {});
  const auto regret_of = [](const tools::ResultTable& t) {
    std::vector<double> r;
    for (const auto& row : t.rows()) r.push_back(std::get<double>(row.at(6)));
    return r;
  };
  EXPECT_EQ(regret_of(results), regret_of(b.at("results")));
  Options other = tiny();
  other.run.seed = 8;
  EXPECT_NE(regret_of(results), regret_of(run(other, {}).at("results")));
}

TEST(VerticalRun, TheCliWritesWhatRunReturns) {
  const fs::path dir = fs::path(P2B_TEST_TMP) / "cli";
  fs::remove_all(dir);
  std::vector<std::string> args{"p2b-sim",  "--protocol",
                                "vertical", "--dim",
                                "8",        "--actions",
                                "4",        "--partition",
                                "3,5",      "--rounds",
                                "60",       "--seeds",
                                "2",        "--seed",
                                "7",        "--threads",
                                "1",        "--policies",
                                "linucb",   "--quiet",
                                "--out",    (dir / "cli").string()};
  std::vector<char*> argv;
  argv.reserve(args.size());
  for (std::string& s : args) argv.push_back(s.data());
  ASSERT_EQ(vertical_main(static_cast<int>(argv.size()), argv.data()), 0);
  tools::write_tables(run(tiny(), {}), (dir / "lib").string());
  // Times differ between two runs; everything else must not.
  const std::set<std::string> timing{"central_us", "active_us", "party_us"};
  for (const char* name : {"results.csv", "curves.csv"}) {
    EXPECT_EQ(tools::testing::csv_without_columns((dir / "cli" / name).string(), timing),
              tools::testing::csv_without_columns((dir / "lib" / name).string(), timing))
        << name;
  }
}

TEST(VerticalRun, CostGridTable) {
  Options o = tiny();
  o.cost = true;
  o.cost_dims = {6};
  o.cost_actions = {3};
  o.cost_parties = 3;
  o.cost_rounds = 2;
  const tools::ResultTables t = run(o, {});
  ASSERT_EQ(t.count("cost"), 1U);
  const auto& row = t.at("cost").rows().at(0);
  EXPECT_EQ(std::get<int64_t>(row.at(14)), std::get<int64_t>(row.at(15)));  // measured = formula
  EXPECT_EQ(std::get<int64_t>(row.at(15)), 100 + 8 * 3 * 6);
}

}  // namespace
}  // namespace p2b::vertical
