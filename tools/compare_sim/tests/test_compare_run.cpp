// p2b-sim --protocol compare as a library: validate() names each bounded
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
#include "cli/tests/csv_without_columns.hpp"
#include "compare_sim/compare_main.hpp"
#include "compare_sim/options.hpp"
#include "compare_sim/run.hpp"

namespace p2b::compare_sim {
namespace {

namespace fs = std::filesystem;

Options tiny() {
  Options o;
  o.envs = {"synthetic"};
  o.protocols = {"local", "p2b", "pooled"};
  o.users = 40;
  o.run.seeds = 2;
  o.run.seed = 3;
  o.run.threads = 1;
  o.dim = 2;
  o.actions = 2;
  o.beta = 1;
  o.servers = 2;
  o.codes = 4;
  o.interactions = 6;
  o.participations = {0.5};
  return o;
}

void expect_names(const Options& o, const std::string& flag) {
  const std::string why = validate(o);
  EXPECT_EQ(why.rfind(flag, 0), 0U) << why;
  EXPECT_THROW(run(o, {}), std::invalid_argument) << flag;
}

template <typename Change>
Options broken(Change change) {
  Options o = tiny();
  change(o);
  return o;
}

TEST(CompareOptions, ValidateNamesTheField) {
  EXPECT_EQ(validate(tiny()), "");
  EXPECT_EQ(validate(broken([](Options& o) { o.users = 5; })),
            "--users = 5: must be in [10, 1000000]");
  expect_names(broken([](Options& o) { o.run.seeds = 0; }), "--seeds");
  expect_names(broken([](Options& o) { o.run.threads = 0; }), "--threads");
  expect_names(broken([](Options& o) { o.early_fraction = 1; }), "--early-fraction");
  expect_names(broken([](Options& o) { o.interactions = 0; }), "--interactions");
  expect_names(broken([](Options& o) { o.dim = 1; }), "--dim");
  expect_names(broken([](Options& o) { o.actions = 1; }), "--actions");
  expect_names(broken([](Options& o) { o.mapping = "cubic"; }), "--mapping");
  expect_names(broken([](Options& o) { o.beta = 2; }), "--beta");
  expect_names(broken([](Options& o) { o.noise_sd = 2; }), "--noise-sd");
  expect_names(broken([](Options& o) { o.ml_dim = 0; }), "--ml-dim");
  expect_names(broken([](Options& o) { o.alpha = -1; }), "--alpha");
  expect_names(broken([](Options& o) { o.codes = 0; }), "--codes");
  expect_names(broken([](Options& o) { o.threshold = 0; }), "--threshold");
  expect_names(broken([](Options& o) { o.delta = 1; }), "--delta");
  expect_names(broken([](Options& o) { o.servers = 0; }), "--servers");
  expect_names(broken([](Options& o) { o.beta_scale = -1; }), "--beta-scale");
  expect_names(broken([](Options& o) { o.omega1 = -1; }), "--omega1");
  expect_names(broken([](Options& o) { o.omega2 = -1; }), "--omega2");
  expect_names(broken([](Options& o) { o.participations = {1}; }), "--participations");
  expect_names(broken([](Options& o) { o.epsilons = {0}; }), "--epsilons");
  expect_names(broken([](Options& o) { o.spends = {0}; }), "--spends");
  expect_names(broken([](Options& o) { o.envs = {"tabular"}; }), "--envs");
  expect_names(broken([](Options& o) { o.protocols = {"nope"}; }), "--protocols");
  expect_names(broken([](Options& o) { o.envs = {"multilabel"}; }), "--data");
  expect_names(broken([](Options& o) { o.users = 10, o.servers = 6; }), "--users");
  expect_names(broken([](Options& o) { o.dim = 10, o.actions = 10; }), "--dim x --actions");
}

std::vector<double> rewards(const tools::ResultTable& t) {
  std::vector<double> r;
  for (const auto& row : t.rows()) r.push_back(std::get<double>(row.at(4)));  // reward_all
  return r;
}

TEST(CompareRun, DeterministicUnderASeedWithTheDocumentedTables) {
  std::vector<std::string> said;
  uint64_t last_done = 0;
  tools::RunHooks hooks;
  hooks.log = [&](const std::string& line) { said.push_back(line); };
  hooks.progress = [&](const std::string&, uint64_t done, uint64_t) { last_done = done; };
  const tools::ResultTables a = run(tiny(), hooks);
  ASSERT_EQ(a.size(), 2U);
  const tools::ResultTable& sum = a.at("summary");
  EXPECT_EQ(sum.columns().at(1), "protocol");
  EXPECT_EQ(sum.columns().at(4), "reward_all");
  EXPECT_EQ(sum.n_rows(), 3U);           // local, p2b at 0.5, pooled
  EXPECT_EQ(a.at("runs").n_rows(), 6U);  // x 2 seeds
  EXPECT_EQ(last_done, 6U);
  bool checked = false;
  for (const std::string& l : said) checked |= l.find("largest gap") != l.npos;
  EXPECT_TRUE(checked);
  EXPECT_EQ(rewards(a.at("runs")), rewards(run(tiny(), {}).at("runs")));
  Options other = tiny();
  other.run.seed = 4;
  EXPECT_NE(rewards(a.at("runs")), rewards(run(other, {}).at("runs")));
}

TEST(CompareRun, TheCliWritesWhatRunReturns) {
  const fs::path dir = fs::path(P2B_TEST_TMP) / "cli";
  fs::remove_all(dir);
  std::vector<std::string> args{"p2b-sim",
                                "--protocol",
                                "compare",
                                "--envs",
                                "synthetic",
                                "--protocols",
                                "local,p2b,pooled",
                                "--users",
                                "40",
                                "--seeds",
                                "2",
                                "--seed",
                                "3",
                                "--threads",
                                "1",
                                "--dim",
                                "2",
                                "--actions",
                                "2",
                                "--beta",
                                "1",
                                "--servers",
                                "2",
                                "--codes",
                                "4",
                                "--interactions",
                                "6",
                                "--participations",
                                "0.5",
                                "--quiet",
                                "--out",
                                (dir / "cli").string()};
  std::vector<char*> argv;
  argv.reserve(args.size());
  for (std::string& s : args) argv.push_back(s.data());
  ASSERT_EQ(compare_main(static_cast<int>(argv.size()), argv.data()), 0);
  ASSERT_TRUE(fs::exists(dir / "cli" / "results.json"));
  tools::write_tables(run(tiny(), {}), (dir / "lib").string());
  const std::set<std::string> timing{"seconds"};  // wall time; nothing else may differ
  for (const char* name : {"runs.csv", "summary.csv"}) {
    EXPECT_EQ(tools::testing::csv_without_columns((dir / "cli" / name).string(), timing),
              tools::testing::csv_without_columns((dir / "lib" / name).string(), timing))
        << name;
  }
}

}  // namespace
}  // namespace p2b::compare_sim
