#include "codebook.hpp"

#include <cstring>

#include "encoder.hpp"

namespace p2b {

void Codebook::init(const Shape& shape, uint32_t round_digits, const float* centroids, char* arena,
                    const ArenaLayout& layout) {
  dim_ = shape.dim;
  n_codes_ = shape.n_codes;
  units_ = pow10_u32(round_digits);
  centroids_.set(reinterpret_cast<float*>(arena + layout.codebook));
  std::memcpy(centroids_.get(), centroids,
              static_cast<std::size_t>(n_codes_) * dim_ * sizeof(float));
}

uint32_t Codebook::encode(const real* xn) const {
  uint32_t units[kMaxDim];
  round_to_units(xn, dim_, units_, units);
  return nearest_code(units, dim_, units_, centroids_.get(), n_codes_);
}

const float* Codebook::centroid(uint32_t code) const {
  return centroids_.get() + static_cast<std::size_t>(code) * dim_;
}

}  // namespace p2b
