// p2b-sim's results files: the CSV keeps its columns (10 significant
// digits), the JSON holds the CSV's values under the same names, and a
// non-finite value is null there.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "sim/results_table.hpp"

namespace {

namespace fs = std::filesystem;
using p2b::sim::ResultRow;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path out_dir(const char* name) {
  fs::path dir = fs::path(P2B_TEST_TMP) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

ResultRow row() {
  ResultRow w;
  w.env = "synthetic";
  w.mode = p2b::sim::Mode::paper;
  w.mapping = "linear";
  w.contexts = "uniform";
  w.weights = "w,1.npz";  // a comma: the CSV must quote it
  w.weights_sha256 = "ab12";
  w.actions = 10, w.dim = 10, w.codes = 1024;
  w.spec.early_users = 1000;
  w.r.population = 1428, w.r.late_users = 428;
  w.r.cold = {0.0105143, 0.0015561};
  w.r.warm_private = {0.0123831, 0.0017882};
  w.r.oracle = 0.0177852;
  w.r.best_fixed_arm = 0.015;
  w.r.best_fixed_arm_index = 3;
  w.r.majority_arm = 0.0149;  // not printed: synthetic rows have no labels
  w.r.private_model = true;
  w.r.reports = 506;
  w.r.epsilon_per_user = std::log(3.0) - std::log(1.5);
  w.r.delta_indicative = 1.234e-5;
  w.seconds = 0.14, w.rss_mb = 30.2;
  return w;
}

TEST(ResultsTable, CsvKeepsItsColumnsAndPrintsTenDigits) {
  const fs::path dir = out_dir("csv");
  p2b::sim::write_results(dir.string(), {row()});
  EXPECT_EQ(read(dir / "results.csv"),
            "env,mode,mapping,contexts,weights,weights_sha256,data,data_sha256,labels,users,"
            "population,late_users,actions,dim,codes,digits,interactions,p,threshold,neg_rate,"
            "alpha,crypto,seed,cold,cold_se,warm_nonprivate,warm_nonprivate_se,warm_private,"
            "warm_private_se,oracle,best_fixed_arm,best_fixed_arm_index,majority_label,"
            "nonprivate_model,private_model,reports,kept,codes_reported,codes_released,"
            "smallest_crowd,epsilon_per_user,delta_indicative,central_epsilon,central_delta,"
            "central_sigma,central_nodes,seconds,crypto_floor_seconds,peak_rss_mb,early,"
            "model_bundle_bytes\n"
            "synthetic,paper,linear,uniform,\"w,1.npz\",ab12,,,,1000,1428,428,10,10,1024,1,10,"
            "0.5,10,0.05,1,1,1,0.0105143,0.0015561,0,0,0.0123831,0.0017882,"
            "0.0177852,0.015,3,nan,0,1,506,0,0,0,0,0.6931471806,1.234e-05,0,0,0,0,0.14,0,30.2,"
            "0,0\n");
}

TEST(ResultsTable, TableHasOneRowPerPointInTheCsvsColumns) {
  const p2b::tools::ResultTable t = p2b::sim::results_table({row(), row()});
  EXPECT_EQ(t.n_rows(), 2U);
  EXPECT_EQ(t.columns().size(), 51U);
  EXPECT_EQ(std::get<std::string>(t.rows()[0][0]), "synthetic");
  EXPECT_EQ(std::get<int64_t>(t.rows()[0][9]), 1000);  // users
}

TEST(ResultsTable, JsonHoldsTheCsvValuesByName) {
  const fs::path dir = out_dir("json");
  p2b::sim::write_results(dir.string(), {row(), row()});
  const auto j = nlohmann::ordered_json::parse(read(dir / "results.json"));
  ASSERT_EQ(j.size(), 2U);
  const auto& o = j[0];
  EXPECT_EQ(o.begin().key(), "env");
  EXPECT_EQ(o.size(), 51U);
  EXPECT_EQ(o["mapping"], "linear");
  EXPECT_EQ(o["mode"], "paper");
  EXPECT_EQ(o["users"], 1000);
  EXPECT_EQ(o["cold"].get<double>(), 0.0105143);  // as the CSV prints it
  EXPECT_EQ(o["delta_indicative"].get<double>(), 1.234e-05);
  EXPECT_EQ(o["crypto"], 1);
  EXPECT_EQ(o["weights"], "w,1.npz");
  EXPECT_TRUE(o["majority_label"].is_null());
}

TEST(ResultsTable, NonFiniteIsNullInJsonAndNanInCsv) {
  ResultRow w = row();
  w.r.warm_private.mean = std::numeric_limits<double>::quiet_NaN();
  w.r.delta_indicative = std::numeric_limits<double>::infinity();
  const fs::path dir = out_dir("nonfinite");
  p2b::sim::write_results(dir.string(), {w});
  const auto j = nlohmann::json::parse(read(dir / "results.json"));  // valid JSON
  EXPECT_TRUE(j[0]["warm_private"].is_null());
  EXPECT_TRUE(j[0]["delta_indicative"].is_null());
  EXPECT_EQ(j[0]["warm_private_se"].get<double>(), 0.0017882);
  const std::string csv = read(dir / "results.csv");
  EXPECT_NE(csv.find(",nan,0.0017882,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",0.6931471806,inf,"), std::string::npos) << csv;
}

TEST(ResultsTable, UnwritableDirectoryThrows) {
  EXPECT_THROW(p2b::sim::write_results("/nonexistent/dir", {row()}), std::runtime_error);
}

}  // namespace
