#include "features.hpp"

namespace p2b::analyzer {

bool parse_mode(const std::string& s, AggregationMode* out) {
  if (s == "default") {
    *out = AggregationMode::centroid;
  } else if (s == "paper") {
    *out = AggregationMode::paper;
  } else {
    return false;
  }
  return true;
}

const char* mode_name(AggregationMode m) {
  return m == AggregationMode::paper ? "paper" : "default";
}

FeatureMap::FeatureMap(AggregationMode mode, const Codebook& codebook)
    : mode_(mode),
      dim_(mode == AggregationMode::paper ? 1 : codebook.info.dim),
      n_codes_(codebook.info.k) {
  // Paper mode never looks at a centroid, so it keeps none.
  if (mode == AggregationMode::centroid) centroids_ = codebook.centroids;
}

void FeatureMap::features(uint32_t code, double* x) const {
  if (mode_ == AggregationMode::paper) {
    x[0] = static_cast<double>(code);
    return;
  }
  const float* c = centroids_.data() + static_cast<std::size_t>(code) * dim_;
  for (uint32_t i = 0; i < dim_; ++i) x[i] = static_cast<double>(c[i]);
}

}  // namespace p2b::analyzer
