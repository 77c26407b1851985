// p2b::data::parse_arff on untrusted text, then the multi-label path the
// simulator takes: detect the labels, make contexts. Parse or data errors
// are fine; anything else (another exception, a crash, UB) is a finding. An
// accepted table must have the promised shape, and contexts must be
// non-negative rows summing to 1.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "data/arff.hpp"
#include "data/multilabel.hpp"

namespace {

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
    std::abort();
  }
}

// Small, so that no input can make the harness allocate much.
p2b::data::ArffLimits limits() {
  p2b::data::ArffLimits l;
  l.max_attributes = 256;
  l.max_rows = 256;
  l.max_cells = 8192;
  l.max_line_bytes = 8192;
  return l;
}

void check_contexts(const p2b::data::ArffTable& table) {
  using namespace p2b::data;
  LabeledTable t;
  try {
    t = split_labels(table, {});
  } catch (const DataError&) {
    return;
  }
  require(t.features.size() == t.rows * t.feature_names.size(), "feature matrix size");
  require(t.labels.size() == t.rows * t.label_names.size(), "label matrix size");
  for (uint8_t v : t.labels) require(v <= 1, "label outside {0,1}");
  const size_t dim = t.feature_names.size() < 3 ? t.feature_names.size() : 3;
  const std::vector<float> x = make_contexts(t, dim);
  require(x.size() == t.rows * dim, "context matrix size");
  for (size_t r = 0; r < t.rows; ++r) {
    double sum = 0;
    for (size_t j = 0; j < dim; ++j) {
      require(x[r * dim + j] >= 0.0f, "negative (or NaN) context entry");
      sum += x[r * dim + j];
    }
    require(std::fabs(sum - 1.0) < 1e-4, "context row does not sum to 1");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace p2b::data;
  ArffTable table;
  try {
    table = parse_arff(std::string_view(reinterpret_cast<const char*>(data), size), limits());
  } catch (const ArffError&) {
    return 0;
  }
  require(table.cols() > 0 && table.cols() <= limits().max_attributes, "attribute count");
  require(table.rows <= limits().max_rows, "row count");
  require(table.values.size() == table.rows * table.cols(), "value matrix size");
  for (double v : table.values) require(std::isfinite(v) || std::isnan(v), "infinite cell");
  check_contexts(table);
  return 0;
}
