#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "cli/result_table.hpp"

namespace p2b::tools {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string scratch_dir(const char* name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   (std::string("p2b-result-table-") + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

TEST(ResultTable, RowWithWrongCellCountIsRejectedAndNotAdded) {
  ResultTable t({"a", "b"});
  EXPECT_THROW(t.add_row({int64_t{1}}), std::invalid_argument);
  EXPECT_EQ(t.n_rows(), 0U);
}

TEST(ResultTable, CsvWritesIntegersRealsNonFiniteAndQuotedText) {
  ResultTable t({"n", "x", "name"});
  t.add_row({int64_t{-3}, 0.1, std::string("plain")});
  t.add_row({int64_t{7}, std::numeric_limits<double>::quiet_NaN(), std::string("a,\"b\"")});
  t.add_row({int64_t{0}, -std::numeric_limits<double>::infinity(), std::string("")});
  const std::string dir = scratch_dir("csv");
  write_tables({{"runs", t}}, dir);
  EXPECT_EQ(read_all(dir + "/runs.csv"),
            "n,x,name\n-3,0.1,plain\n7,nan,\"a,\"\"b\"\"\"\n0,-inf,\n");
  std::filesystem::remove_all(dir);
}

TEST(ResultTable, UnwritablePathThrowsNamingIt) {
  ResultTable t({"n"});
  try {
    write_csv(t, "/nonexistent-dir-p2b/x.csv");
    FAIL() << "expected a runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir-p2b/x.csv"), std::string::npos);
  }
}

}  // namespace
}  // namespace p2b::tools
