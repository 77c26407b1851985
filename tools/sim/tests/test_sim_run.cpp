// p2b-sim's P2B experiment as a library: validate() names the field and its
// range, run() is deterministic under a seed and returns results.csv's
// table, reports through its hooks only, and the CLI writes what run()
// returns.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/result_table.hpp"
#include "sim/results_table.hpp"
#include "sim/run.hpp"
#include "sim/sim_main.hpp"
#include "sim/sim_options.hpp"

namespace {

namespace fs = std::filesystem;
using p2b::sim::SimOptions;

// The smallest grid that still shares, trains and releases something.
SimOptions tiny() {
  SimOptions o;
  o.users = {40};
  o.actions = {3};
  o.dims = {2};
  o.interactions = {4};
  o.modes = {p2b::sim::Mode::paper};
  o.codes = 4;
  o.threshold = 2;
  o.crypto = false;
  o.run.seed = 7;
  o.run.threads = 1;
  return o;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path fresh_dir(const char* name) {
  fs::path dir = fs::path(P2B_TEST_TMP) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The table's cells as text (NaN equals itself there), without the
// wall-clock and memory columns, which no two runs share.
std::vector<std::vector<std::string>> without_timings(const p2b::tools::ResultTable& t) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& row : t.rows()) {
    std::vector<std::string> kept;
    for (std::size_t j = 0; j < row.size(); ++j) {
      const std::string& name = t.columns()[j];
      if (name == "seconds" || name == "peak_rss_mb") continue;
      if (const auto* s = std::get_if<std::string>(&row[j])) {
        kept.push_back(name + "=" + *s);
      } else if (const auto* i = std::get_if<int64_t>(&row[j])) {
        kept.push_back(name + "=" + std::to_string(*i));
      } else {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", std::get<double>(row[j]));
        kept.push_back(name + "=" + buf);
      }
    }
    rows.push_back(kept);
  }
  return rows;
}

// A CSV's lines with the cells of those columns blanked.
std::vector<std::string> csv_without_timings(const std::string& csv) {
  std::vector<std::string> lines;
  std::stringstream in(csv);
  std::string line;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) cells.push_back(cell);
    if (header.empty()) header = cells;
    std::string out;
    for (std::size_t j = 0; j < cells.size(); ++j) {
      const bool timing = header[j] == "seconds" || header[j] == "peak_rss_mb";
      out += (j ? "," : "") + (timing ? std::string() : cells[j]);
    }
    lines.push_back(out);
  }
  return lines;
}

struct Case {
  const char* flag;
  void (*spoil)(SimOptions&);
  const char* range;
};

TEST(SimValidate, DefaultsAreValid) {
  EXPECT_EQ(p2b::sim::validate(SimOptions{}), "");
  EXPECT_EQ(p2b::sim::validate(tiny()), "");
}

TEST(SimValidate, NamesTheFieldAndItsRange) {
  const Case cases[] = {
      {"--users", [](SimOptions& o) { o.users = {5}; }, "[10, 10^8]"},
      {"--actions", [](SimOptions& o) { o.actions = {1}; }, "[2, 1024]"},
      {"--dim",
       [](SimOptions& o) {
         o.dims = {10, 65};
       },
       "[2, 64]"},
      {"--interactions", [](SimOptions& o) { o.interactions = {0}; }, "[1, 4096]"},
      {"--central-epsilon", [](SimOptions& o) { o.central_epsilons = {-1}; }, "[0, 100]"},
      {"--seeds", [](SimOptions& o) { o.run.seeds = 0; }, "[1, 10^6]"},
      {"--threads", [](SimOptions& o) { o.run.threads = 0; }, "[1, 1024]"},
      {"--codes", [](SimOptions& o) { o.codes = 0; }, "[1, 65536]"},
      {"--digits", [](SimOptions& o) { o.digits = 4; }, "[1, 3]"},
      {"--p", [](SimOptions& o) { o.participation = 1; }, "[1e-6, 1 - 1e-6]"},
      {"--threshold", [](SimOptions& o) { o.threshold = 2000000000; }, "[0, 10^9]"},
      {"--neg-rate", [](SimOptions& o) { o.neg_rate = 2; }, "[0, 1]"},
      {"--alpha", [](SimOptions& o) { o.alpha = -1; }, "[0, 10^6]"},
      {"--early-fraction", [](SimOptions& o) { o.early_fraction = 1; }, "[0.01, 0.99]"},
      {"--beta", [](SimOptions& o) { o.beta = 1.5; }, "[0, 1]"},
      {"--noise-sd", [](SimOptions& o) { o.noise_sd = 11; }, "[0, 10]"},
      {"--central-delta", [](SimOptions& o) { o.central_delta = 0.5; }, "[1e-30, 0.01]"},
      {"--central-horizon", [](SimOptions& o) { o.central_horizon = 0; }, "[1, 2^40]"},
      {"--central-release", [](SimOptions& o) { o.central_release = o.central_horizon + 1; },
       "[0, --central-horizon"},
  };
  for (const Case& c : cases) {
    SimOptions o = tiny();
    c.spoil(o);
    const std::string e = p2b::sim::validate(o);
    EXPECT_EQ(e.rfind(std::string(c.flag) + " = ", 0), 0U) << c.flag << ": " << e;
    EXPECT_NE(e.find(c.range), std::string::npos) << c.flag << ": " << e;
  }
}

TEST(SimValidate, NamesTheWordFieldsAndCombinations) {
  SimOptions o = tiny();
  o.env = "tabular";
  EXPECT_EQ(p2b::sim::validate(o), "--env = tabular: must be synthetic or multilabel");
  o = tiny();
  o.env = "multilabel";
  EXPECT_EQ(p2b::sim::validate(o), "--env multilabel needs --data FILE.arff");
  o = tiny();
  o.modes.clear();
  EXPECT_EQ(p2b::sim::validate(o).rfind("--mode", 0), 0U);
}

TEST(SimRun, InvalidOptionsThrowTheValidateMessage) {
  SimOptions o = tiny();
  o.users = {5};
  try {
    p2b::sim::run(o, {});
    FAIL() << "run() accepted --users 5";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), p2b::sim::validate(o));
  }
}

TEST(SimRun, ReturnsTheResultsTableDeterministically) {
  SimOptions o = tiny();
  o.modes = {p2b::sim::Mode::paper, p2b::sim::Mode::standard};
  const auto a = p2b::sim::run(o, {});
  ASSERT_EQ(a.size(), 1U);
  const p2b::tools::ResultTable& t = a.at("results");
  EXPECT_EQ(t.columns(), p2b::sim::results_table({}).columns());
  EXPECT_EQ(t.columns().front(), "env");
  ASSERT_EQ(t.n_rows(), 2U);
  EXPECT_EQ(std::get<std::string>(t.rows()[0][1]), "paper");
  EXPECT_EQ(std::get<std::string>(t.rows()[1][1]), "default");
  EXPECT_EQ(without_timings(p2b::sim::run(o, {}).at("results")), without_timings(t));
  o.run.seed = 8;
  EXPECT_NE(without_timings(p2b::sim::run(o, {}).at("results")), without_timings(t));
}

TEST(SimRun, SeedsRepeatTheGridOncePerSeed) {
  SimOptions o = tiny();
  o.run.seeds = 2;
  const p2b::tools::ResultTable t = p2b::sim::run(o, {}).at("results");
  ASSERT_EQ(t.n_rows(), 2U);
  std::size_t seed = 0;
  while (t.columns()[seed] != "seed") ++seed;
  EXPECT_EQ(std::get<int64_t>(t.rows()[0][seed]), 7);
  EXPECT_EQ(std::get<int64_t>(t.rows()[1][seed]), 8);
  SimOptions second = tiny();
  second.run.seed = 8;
  const auto alone = without_timings(p2b::sim::run(second, {}).at("results"));
  EXPECT_EQ(without_timings(t).back(), alone.front());
}

TEST(SimRun, ReportsThroughItsHooks) {
  std::vector<std::string> lines;
  uint64_t last_done = 0, last_total = 0;
  p2b::tools::RunHooks hooks;
  hooks.log = [&](const std::string& line) { lines.push_back(line); };
  hooks.progress = [&](const std::string&, uint64_t done, uint64_t total) {
    EXPECT_LE(done, total);
    last_done = done, last_total = total;
  };
  p2b::sim::run(tiny(), hooks);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front().rfind("p2b-sim ", 0), 0U) << lines.front();
  EXPECT_GT(last_total, 0U);
  EXPECT_EQ(last_done, last_total);  // the last report ends the bar
  bool privacy = false;
  for (const std::string& l : lines) privacy |= l.rfind("privacy per point", 0) == 0;
  EXPECT_TRUE(privacy);
}

TEST(SimCli, WritesWhatRunReturns) {
  const fs::path cli_dir = fresh_dir("cli");
  std::vector<std::string> args{"p2b-sim",
                                "--users",
                                "40",
                                "--actions",
                                "3",
                                "--dim",
                                "2",
                                "--interactions",
                                "4",
                                "--mode",
                                "paper",
                                "--codes",
                                "4",
                                "--threshold",
                                "2",
                                "--no-crypto",
                                "--seed",
                                "7",
                                "--threads",
                                "1",
                                "--quiet",
                                "--out",
                                cli_dir.string()};
  std::vector<char*> argv;
  argv.reserve(args.size());
  for (std::string& a : args) argv.push_back(a.data());
  ASSERT_EQ(p2b::sim::sim_main(static_cast<int>(argv.size()), argv.data()), 0);

  SimOptions o;
  ASSERT_EQ(p2b::sim::parse_options(static_cast<int>(argv.size()), argv.data(), &o), -1);
  o.run.out.clear();  // no codebook cache: the same floats either way
  const fs::path lib_dir = fresh_dir("lib");
  p2b::tools::write_tables(p2b::sim::run(o, {}), lib_dir.string());
  EXPECT_EQ(csv_without_timings(read(cli_dir / "results.csv")),
            csv_without_timings(read(lib_dir / "results.csv")));
  EXPECT_TRUE(fs::exists(cli_dir / "results.json"));
}

}  // namespace
