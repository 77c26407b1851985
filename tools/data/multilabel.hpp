// Multi-label data sets for the simulator's bandit experiment (P2B section
// 5.2, docs/data.md): which ARFF columns are labels, and the preprocessing
// that turns the features into non-negative d-dimensional contexts summing
// to 1, the form the P2B encoder expects.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "data/arff.hpp"

namespace p2b::data {

// Where the labels are. kDetect decides from the values (docs/data.md).
struct LabelSpec {
  enum class Kind { kDetect, kFirst, kLast, kPrefix };
  Kind kind = Kind::kDetect;
  size_t count = 0;    // kFirst, kLast
  std::string prefix;  // kPrefix: header names starting with it

  // "auto", "first:N", "last:N" or "prefix:NAME"; throws DataError.
  static LabelSpec parse(std::string_view text);
};

class DataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Features and labels of every row, split but not yet preprocessed.
struct LabeledTable {
  size_t rows = 0;
  std::vector<std::string> feature_names;
  std::vector<std::string> label_names;
  std::vector<double> features;  // rows x feature_names.size(), row-major, finite
  std::vector<uint8_t> labels;   // rows x label_names.size(), each 0 or 1
  std::string note;              // one line: what was detected or used
};

// Throws DataError when the spec does not fit the data: a label column with
// a value other than 0 or 1, a missing value, no feature column left, or no
// unambiguous label block to detect.
LabeledTable split_labels(const ArffTable& table, const LabelSpec& spec);

struct LabelStats {
  size_t rows = 0;
  size_t n_labels = 0;
  double cardinality = 0;         // mean number of labels per row
  size_t rows_without_label = 0;  // rows with none of the labels set
};
LabelStats label_stats(const LabeledTable& t);

// Features -> contexts (docs/data.md): min-max every feature to [0, 1]
// (constant features to 0), project onto the top `dim` principal components,
// min-max every component to [0, 1], then divide each row by its sum (a
// zero row becomes uniform). 1 <= dim <= number of features.
std::vector<float> make_contexts(const LabeledTable& t, size_t dim);

struct MultiLabelSet {
  size_t rows = 0;
  size_t dim = 0;
  size_t n_labels = 0;
  std::vector<float> contexts;  // rows x dim, row-major, >= 0, each row sums to 1
  std::vector<uint8_t> labels;  // rows x n_labels, 0 or 1
  std::vector<std::string> label_names;
  LabelStats stats;
  std::string note;
};

MultiLabelSet make_multilabel_set(const ArffTable& table, const LabelSpec& spec, size_t dim);

}  // namespace p2b::data
