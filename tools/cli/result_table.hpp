// A simulator's results as named tables of named columns: the one form that
// p2b-sim writes as CSV and the Python bindings turn into DataFrames, so the
// file and the DataFrame cannot disagree on a column's name or value.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace p2b::tools {

// A cell: an integer, a real number (nan and inf allowed) or text.
using Cell = std::variant<int64_t, double, std::string>;

class ResultTable {
 public:
  ResultTable() = default;
  explicit ResultTable(std::vector<std::string> columns) : columns_(std::move(columns)) {}

  const std::vector<std::string>& columns() const { return columns_; }
  const std::vector<std::vector<Cell>>& rows() const { return rows_; }
  size_t n_rows() const { return rows_.size(); }

  // Appends a row; throws std::invalid_argument when it has not one cell per
  // column (a programming error in the simulator, caught by its tests).
  void add_row(std::vector<Cell> row);

 private:
  std::vector<std::string> columns_;
  std::vector<std::vector<Cell>> rows_;
};

// Every table a run produced, by name ("runs", "curves", "summary", ...);
// p2b-sim writes each as <out>/<name>.csv.
using ResultTables = std::map<std::string, ResultTable>;

// Writes `table` as CSV with a header row: integers as integers, reals with
// 10 significant digits (nan, inf, -inf as such), text quoted when it holds
// a comma, quote or newline. Throws std::runtime_error naming the path when
// the file cannot be written completely.
void write_csv(const ResultTable& table, const std::string& path);

// Writes every table into `dir` (created if missing) as <name>.csv.
void write_tables(const ResultTables& tables, const std::string& dir);

}  // namespace p2b::tools
