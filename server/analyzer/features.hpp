// What a report's code becomes as a context vector (docs/analyzer.md, "Aggregation modes").
//   default: the code's centroid, dim = the codebook's d, so the warm model
//            fits devices that keep using their raw d-dimensional contexts.
//   paper:   the code itself as one scalar feature, x = [code], dim = 1, as
//            the authors' reference code does (code 0 is the zero vector).
//            For reproducing the paper only: devices must then run dim = 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codebook_file.hpp"

namespace p2b::analyzer {

enum class AggregationMode { centroid, paper };

// "default" / "paper"; false for anything else.
bool parse_mode(const std::string& s, AggregationMode* out);
const char* mode_name(AggregationMode m);

class FeatureMap {
 public:
  FeatureMap(AggregationMode mode, const Codebook& codebook);

  AggregationMode mode() const { return mode_; }
  uint32_t dim() const { return dim_; }
  uint32_t n_codes() const { return n_codes_; }
  // Writes dim() values for `code`, which must be < n_codes().
  void features(uint32_t code, double* x) const;

 private:
  AggregationMode mode_;
  uint32_t dim_;
  uint32_t n_codes_;
  std::vector<float> centroids_;
};

}  // namespace p2b::analyzer
