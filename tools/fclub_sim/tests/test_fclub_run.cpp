// p2b-sim --protocol fclub as a library: validate() names each bad field by
// its flag and range, run() is deterministic under a seed and returns the
// documented tables, and the CLI writes exactly what run() returns.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "cli/result_table.hpp"
#include "cli/tests/csv_without_columns.hpp"
#include "fclub_sim/fclub_main.hpp"
#include "fclub_sim/fclub_run.hpp"
#include "fclub_sim/options.hpp"

namespace p2b::fclub_sim {
namespace {

Options tiny() {
  Options o;
  o.run.seeds = 2;
  o.run.seed = 3;
  o.run.threads = 2;
  o.rounds = 1500;
  o.every = 500;
  o.users = 10;
  o.servers = 2;
  o.clusters = 2;
  o.dims = {4};
  o.items = 5;
  o.algorithms = {"linucb-ind", "fclub-dc", "cdp-fclub-dc"};
  return o;
}

struct BadField {
  std::string flag;
  std::function<void(Options&)> spoil;
};

TEST(FclubOptions, ValidateNamesEachBoundedFieldAndItsRange) {
  const std::vector<BadField> cases{
      {"--seeds", [](Options& o) { o.run.seeds = 0; }},
      {"--threads", [](Options& o) { o.run.threads = 0; }},
      {"--mode", [](Options& o) { o.mode = "paper"; }},
      {"--rounds", [](Options& o) { o.rounds = 0; }},
      {"--every", [](Options& o) { o.every = 0; }},
      {"--users", [](Options& o) { o.users = 0; }},
      {"--servers", [](Options& o) { o.servers = 0; }},
      {"--clusters", [](Options& o) { o.clusters = 0; }},
      {"--items", [](Options& o) { o.items = 0; }},
      {"--layout", [](Options& o) { o.layout = "random"; }},
      {"--delta", [](Options& o) { o.delta = 0.9; }},
      {"--beta-scale", [](Options& o) { o.beta_scale = -1; }},
      {"--split-alpha", [](Options& o) { o.split_alpha = 0; }},
      {"--merge-alpha", [](Options& o) { o.merge_alpha = 0; }},
      {"--theta-gap", [](Options& o) { o.theta_gap = -1; }},
      {"--upload-ratio", [](Options& o) { o.upload_ratio = 0.5; }},
      {"--download-ratio", [](Options& o) { o.download_ratio = 0.5; }},
      {"--dims", [](Options& o) { o.dims = {1}; }},
      {"--epsilons", [](Options& o) { o.epsilons = {0.0}; }},
      {"--algorithms", [](Options& o) { o.algorithms = {"fancy"}; }},
      {"--thetas", [](Options& o) { o.thetas = "/nonexistent.npy"; }},
  };
  ASSERT_EQ(validate(tiny()), "");
  for (const BadField& c : cases) {
    Options o = tiny();
    c.spoil(o);
    const std::string why = validate(o);
    EXPECT_EQ(why.rfind(c.flag + " ", 0), 0U) << c.flag << ": " << why;
    EXPECT_NE(why.find("must"), std::string::npos) << why;
  }
}

TEST(FclubOptions, ValidateStatesTheRangeAndTheCrossFieldRules) {
  Options o = tiny();
  o.rounds = 0;
  EXPECT_EQ(validate(o), "--rounds = 0: must be in [1, 1073741824]");
  o = tiny();
  o.users = 1;
  EXPECT_EQ(validate(o), "--users = 1: must be at least --servers (2)");
  o = tiny();
  o.mode = "reference";
  o.algorithms = {"homo"};
  EXPECT_EQ(validate(o).rfind("--algorithms = homo: --mode reference", 0), 0U);
}

TEST(FclubRun, InvalidOptionsThrowTheValidateMessage) {
  Options o = tiny();
  o.rounds = 0;
  try {
    run(o, {});
    FAIL() << "run() accepted --rounds 0";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), validate(o));
  }
}

std::vector<std::string> column_names(const tools::ResultTable& t) {
  return t.columns();
}

TEST(FclubRun, ReturnsTheDocumentedTables) {
  const tools::ResultTables t = run(tiny(), {});
  ASSERT_EQ(t.size(), 3U);
  EXPECT_EQ(column_names(t.at("summary")),
            (std::vector<std::string>{"mode", "algorithm", "dim", "epsilon", "seeds", "regret_mean",
                                      "regret_sd", "uploads_mean", "downloads_mean", "events_mean",
                                      "bytes_mean", "clusters_mean", "epsilon_spent_max",
                                      "us_per_round_mean"}));
  EXPECT_EQ(t.at("runs").columns().size(), 15U);
  EXPECT_EQ(t.at("curves").columns().back(), "cum_regret");
  EXPECT_EQ(t.at("runs").n_rows(), 6U);         // 3 algorithms x 2 seeds
  EXPECT_EQ(t.at("summary").n_rows(), 3U);      // one per algorithm
  EXPECT_EQ(t.at("curves").n_rows(), 6U * 3U);  // rounds 500, 1000, 1500
}

// Every cell but the timing columns.
std::vector<std::vector<tools::Cell>> results_only(const tools::ResultTable& t) {
  std::vector<std::vector<tools::Cell>> rows;
  for (const auto& row : t.rows()) {
    std::vector<tools::Cell> kept;
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (t.columns()[c].rfind("us_per_round", 0) != 0) kept.push_back(row[c]);
    }
    rows.push_back(kept);
  }
  return rows;
}

TEST(FclubRun, IsDeterministicUnderASeedWhateverTheThreads) {
  Options one = tiny();
  one.run.threads = 1;
  const tools::ResultTables a = run(one, {});
  const tools::ResultTables b = run(tiny(), {});
  for (const char* name : {"runs", "curves", "summary"})
    EXPECT_EQ(results_only(a.at(name)), results_only(b.at(name))) << name;
  Options other = tiny();
  other.run.seed = 4;
  EXPECT_NE(results_only(run(other, {}).at("runs")), results_only(a.at("runs")));
}

TEST(FclubRun, ReportsProgressToTheEndAndSaysTheSetting) {
  tools::RunHooks hooks;
  uint64_t last_done = 0, last_total = 1;
  std::vector<std::string> lines;
  hooks.progress = [&](const std::string&, uint64_t done, uint64_t total) {
    last_done = done;
    last_total = total;
  };
  hooks.log = [&](const std::string& line) { lines.push_back(line); };
  run(tiny(), hooks);
  EXPECT_EQ(last_done, last_total);
  EXPECT_EQ(last_total, 1500U * 6U);
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[1].rfind("wire: P2BU ", 0), 0U);
}

TEST(FclubMain, WritesExactlyWhatRunReturns) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("p2b-fclub-run-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string cli = (dir / "cli").string(), lib = (dir / "lib").string();
  std::vector<std::string> args{"p2b-sim",
                                "--protocol",
                                "fclub",
                                "--seeds",
                                "2",
                                "--seed",
                                "3",
                                "--rounds",
                                "1500",
                                "--every",
                                "500",
                                "--users",
                                "10",
                                "--servers",
                                "2",
                                "--clusters",
                                "2",
                                "--dims",
                                "4",
                                "--items",
                                "5",
                                "--algorithms",
                                "linucb-ind,fclub-dc,cdp-fclub-dc",
                                "--quiet",
                                "--out",
                                cli};
  std::vector<char*> argv;
  argv.reserve(args.size());
  for (std::string& a : args) argv.push_back(a.data());
  ASSERT_EQ(fclub_main(static_cast<int>(argv.size()), argv.data()), 0);
  tools::write_tables(run(tiny(), {}), lib);
  const std::set<std::string> timing{"us_per_round", "us_per_round_mean"};
  for (const char* name : {"runs.csv", "curves.csv", "summary.csv"}) {
    const std::string a = tools::testing::csv_without_columns(cli + "/" + name, timing);
    EXPECT_FALSE(a.empty()) << name;
    EXPECT_EQ(a, tools::testing::csv_without_columns(lib + "/" + name, timing)) << name;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace p2b::fclub_sim
