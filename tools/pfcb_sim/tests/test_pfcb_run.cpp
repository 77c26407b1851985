// p2b-sim --protocol pfcb as a library: validate() names each bad field by
// its flag and range, run() is deterministic under a seed and returns the
// documented tables, and the CLI writes exactly what run() returns.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "cli/result_table.hpp"
#include "cli/tests/csv_without_columns.hpp"
#include "pfcb_sim/options.hpp"
#include "pfcb_sim/pfcb_main.hpp"
#include "pfcb_sim/pfcb_run.hpp"

namespace p2b::pfcb_sim {
namespace {

Options tiny() {
  Options o;
  o.run.seeds = 2;
  o.run.seed = 5;
  o.producers = 6;
  o.agents_grid = {3};
  o.rounds = 1000;
  o.instances = 1;
  o.team.window_start = 100;
  o.team.window_stop = 800;
  o.algorithms = {"nf", "fcb", "pfcb"};
  o.dists = {Dist::normal};
  o.epsilons = {1.0};
  return o;
}

struct BadField {
  std::string flag;
  std::function<void(Options&)> spoil;
};

TEST(PfcbOptions, ValidateNamesEachBoundedFieldAndItsRange) {
  const std::vector<BadField> cases{
      {"--seeds", [](Options& o) { o.run.seeds = 0; }},
      {"--threads", [](Options& o) { o.run.threads = 0; }},
      {"--producers", [](Options& o) { o.producers = 65; }},
      {"--instances", [](Options& o) { o.instances = 0; }},
      {"--rounds", [](Options& o) { o.rounds = 0; }},
      {"--max-capacity", [](Options& o) { o.max_capacity = 0; }},
      {"--alpha", [](Options& o) { o.alpha = 2; }},
      {"--window-start", [](Options& o) { o.team.window_start = 0; }},
      {"--window-stop", [](Options& o) { o.team.window_stop = 0; }},
      {"--delta", [](Options& o) { o.team.delta = 0.9; }},
      {"--omega1", [](Options& o) { o.team.omega1 = -1; }},
      {"--omega2", [](Options& o) { o.team.omega2 = -1; }},
      {"--ucb-scale", [](Options& o) { o.team.ucb_scale = -1; }},
      {"--quality-margin", [](Options& o) { o.team.quality_margin = 2; }},
      {"--epsilons", [](Options& o) { o.epsilons = {0.0}; }},
      {"--agents-grid", [](Options& o) { o.agents_grid = {0}; }},
      {"--algorithms", [](Options& o) { o.algorithms = {"pfcb-fancy"}; }},
      {"--dist", [](Options& o) { o.dists.clear(); }},
      {"--public-max-capacity", [](Options& o) { o.team.public_max_capacity = 10; }},
  };
  ASSERT_EQ(validate(tiny()), "");
  for (const BadField& c : cases) {
    Options o = tiny();
    c.spoil(o);
    const std::string why = validate(o);
    EXPECT_EQ(why.rfind(c.flag + " ", 0), 0U) << c.flag << ": " << why;
  }
  Options o = tiny();
  o.producers = 65;
  EXPECT_EQ(validate(o), "--producers = 65: must be in [1, 64]");
  o = tiny();
  o.team.window_start = 900;
  EXPECT_EQ(validate(o), "--window-start = 900: must not be after --window-stop (800)");
}

TEST(PfcbRun, InvalidOptionsThrowTheValidateMessage) {
  Options o = tiny();
  o.producers = 0;
  EXPECT_THROW(run(o, {}), std::invalid_argument);
}

TEST(PfcbRun, ReturnsTheDocumentedTables) {
  const tools::ResultTables t = run(tiny(), {});
  std::vector<std::string> names;
  for (const auto& [name, table] : t) names.push_back(name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"curves", "curves_runs", "ratios", "runs", "summary"}));
  EXPECT_EQ(t.at("summary").columns().size(), 24U);
  EXPECT_EQ(t.at("summary").columns()[5], "regret_mean");
  EXPECT_EQ(t.at("runs").n_rows(), 3U * 2U);      // nf, fcb, pfcb x 2 runs
  EXPECT_EQ(t.at("summary").n_rows(), 3U);        // one group each
  EXPECT_EQ(t.at("ratios").n_rows(), 2U);         // fcb and pfcb against nf
  EXPECT_EQ(t.at("curves").n_rows(), 3U * 100U);  // every rounds / 100
  EXPECT_EQ(t.at("curves_runs").n_rows(), 6U * 100U);
}

// Every cell but the timing columns.
std::vector<std::vector<tools::Cell>> results_only(const tools::ResultTable& t) {
  const std::set<std::string> timing{"seconds", "seconds_total", "seconds_per_run"};
  std::vector<std::vector<tools::Cell>> rows;
  for (const auto& row : t.rows()) {
    std::vector<tools::Cell> kept;
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (timing.count(t.columns()[c]) == 0) kept.push_back(row[c]);
    }
    rows.push_back(kept);
  }
  return rows;
}

TEST(PfcbRun, IsDeterministicUnderASeedWhateverTheThreads) {
  Options one = tiny();
  one.run.threads = 1;
  const tools::ResultTables a = run(one, {});
  const tools::ResultTables b = run(tiny(), {});
  for (const auto& [name, table] : a) EXPECT_EQ(results_only(table), results_only(b.at(name)));
  Options other = tiny();
  other.run.seed = 6;
  EXPECT_NE(results_only(run(other, {}).at("runs")), results_only(a.at("runs")));
}

TEST(PfcbMain, WritesExactlyWhatRunReturnsAndTheOldRunsFlagStillWorks) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("p2b-pfcb-run-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string cli = (dir / "cli").string(), lib = (dir / "lib").string();
  // --runs: the deprecated spelling of --seeds.
  std::vector<std::string> args{"p2b-sim",     "--protocol",    "pfcb",   "--runs",
                                "2",           "--seed",        "5",      "--producers",
                                "6",           "--agents",      "3",      "--rounds",
                                "1000",        "--instances",   "1",      "--window-start",
                                "100",         "--window-stop", "800",    "--algorithms",
                                "nf,fcb,pfcb", "--dist",        "normal", "--epsilons",
                                "1",           "--quiet",       "--out",  cli};
  std::vector<char*> argv;
  argv.reserve(args.size());
  for (std::string& a : args) argv.push_back(a.data());
  ASSERT_EQ(pfcb_main(static_cast<int>(argv.size()), argv.data()), 0);
  EXPECT_TRUE(std::filesystem::exists(cli + "/summary.json"));
  tools::write_tables(run(tiny(), {}), lib);
  const std::set<std::string> timing{"seconds", "seconds_total", "seconds_per_run"};
  for (const char* name :
       {"runs.csv", "curves.csv", "curves_runs.csv", "summary.csv", "ratios.csv"}) {
    const std::string a = tools::testing::csv_without_columns(cli + "/" + name, timing);
    EXPECT_FALSE(a.empty()) << name;
    EXPECT_EQ(a, tools::testing::csv_without_columns(lib + "/" + name, timing)) << name;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace p2b::pfcb_sim
