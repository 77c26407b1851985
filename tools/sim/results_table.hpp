// p2b-sim's results: one row per grid point, as the "results" table that
// run() returns, p2b-sim writes as results.csv and Python gets as a
// DataFrame; results.json holds the same values under the same names. A
// value that is not finite prints as nan/inf in the CSV and is null in the
// JSON, whose numbers are the CSV's (10 significant digits).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/result_table.hpp"
#include "experiment.hpp"

namespace p2b::sim {

struct ResultRow {
  std::string env;
  Mode mode = Mode::standard;
  std::string mapping;  // synthetic: linear | softmax; empty for data sets
  // What produced the row: the context law (synthetic), the weights or data
  // file with its SHA-256, and the label spec (multi-label); empty when not
  // applicable (e.g. weights drawn from the seed).
  std::string contexts, weights, weights_sha256, data, data_sha256, labels;
  uint32_t actions = 0, dim = 0, codes = 0;
  PointSpec spec;
  PointResult r;
  double seconds = 0.0;
  double crypto_floor_seconds = 0.0;  // reports x per-report crypto / threads; 0: --no-crypto
  double rss_mb = 0.0;
};

const char* mode_name(Mode m);

// The rows as one table, columns in results.csv's order.
tools::ResultTable results_table(const std::vector<ResultRow>& rows);

// Writes `table` as a JSON array with one object per row, keyed by column;
// throws std::runtime_error naming the path when it cannot be written.
void write_results_json(const tools::ResultTable& table, const std::string& path);

// Writes <dir>/results.csv and <dir>/results.json; throws std::runtime_error
// when either cannot be written.
void write_results(const std::string& dir, const std::vector<ResultRow>& rows);

}  // namespace p2b::sim
