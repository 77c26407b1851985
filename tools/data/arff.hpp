// ARFF reader for the simulator's real data sets (docs/data.md). Reads dense
// and sparse rows into one row-major matrix of doubles. The input is
// untrusted: every malformed line is an ArffError naming its line, and the
// limits bound what a file can make us allocate.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace p2b::data {

enum class AttributeType {
  kNumeric,  // numeric, real or integer
  kNominal,  // {v1, v2, ...}
};

struct Attribute {
  std::string name;
  AttributeType type = AttributeType::kNumeric;
  std::vector<std::string> nominal_values;  // declared order; empty for numeric

  // True for a nominal attribute declared exactly as {0,1} (in either order).
  bool is_binary_nominal() const;
};

struct ArffLimits {
  size_t max_attributes = 100000;
  size_t max_rows = 10000000;
  size_t max_cells = size_t{1} << 27;  // rows x attributes: 1 GiB of doubles
  size_t max_line_bytes = size_t{1} << 24;
};

// Cells: numeric attributes hold their value. Nominal attributes whose
// declared values are all numbers (such as {0,1}) hold the number as
// written, unchecked against the declared set, because real files (yeast)
// put columns in a different order than their header; other nominal
// attributes hold the index of the value in the declaration. Missing values
// ('?') are NaN; entries absent from a sparse row are 0.
struct ArffTable {
  std::string relation;
  std::vector<Attribute> attributes;
  size_t rows = 0;
  std::vector<double> values;  // rows x cols(), row-major

  size_t cols() const { return attributes.size(); }
  double at(size_t row, size_t col) const { return values[row * cols() + col]; }
};

class ArffError : public std::runtime_error {
 public:
  ArffError(size_t line, const std::string& what);  // line 0: not tied to a line
  size_t line() const { return line_; }

 private:
  size_t line_;
};

// `source` names the input in error messages (a path, or "<memory>").
ArffTable parse_arff(std::string_view text, const ArffLimits& limits = {},
                     const std::string& source = "<memory>");
ArffTable load_arff(const std::string& path, const ArffLimits& limits = {});

}  // namespace p2b::data
