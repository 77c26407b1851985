// p2b-sim's results: one row per grid point, written as results.csv and
// results.json from one list of columns, so the two files always agree.
// The JSON holds each number as the CSV prints it (same rounding); a value
// that is not finite prints as nan/inf in the CSV and as null in the JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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

// Writes <dir>/results.csv and <dir>/results.json; throws std::runtime_error
// when either cannot be written.
void write_results(const std::string& dir, const std::vector<ResultRow>& rows);

}  // namespace p2b::sim
