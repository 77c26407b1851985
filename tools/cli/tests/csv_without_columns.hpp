// Test helper: a CSV file's text without some columns (by header name), so
// that a simulator's CLI output and its run() results can be compared while
// leaving out what measures time rather than results.
#pragma once

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace p2b::tools::testing {

inline std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream s(line);
  std::string cell;
  while (std::getline(s, cell, ',')) cells.push_back(cell);
  return cells;
}

// The file's lines joined by '\n', each without the cells under `drop`
// (quoted commas are not expected in the simulators' tables).
inline std::string csv_without_columns(const std::string& path, const std::set<std::string>& drop) {
  std::ifstream in(path);
  std::string line, out;
  std::vector<bool> keep;
  while (std::getline(in, line)) {
    const std::vector<std::string> cells = split_csv_line(line);
    if (keep.empty()) {
      for (const std::string& c : cells) keep.push_back(drop.count(c) == 0);
    }
    for (std::size_t i = 0; i < cells.size() && i < keep.size(); ++i) {
      if (keep[i]) out += cells[i] + ',';
    }
    out += '\n';
  }
  return out;
}

}  // namespace p2b::tools::testing
