// An agent's copy of the k-means codebook (k x d floats in the arena) and the
// encoding of normalised contexts into codes against it (encoder.hpp).
#pragma once

#include <cstdint>

#include "arena_layout.hpp"
#include "relative_ptr.hpp"

namespace p2b {

class Codebook {
 public:
  // Copies `centroids` (shape.n_codes x shape.dim, row-major) into the arena.
  void init(const Shape& shape, uint32_t round_digits, const float* centroids, char* arena,
            const ArenaLayout& layout);

  uint32_t size() const { return n_codes_; }

  // Nearest centroid to `xn` kept to 10^q units.
  uint32_t encode(const real* xn) const;
  // Row `code` (< size()), dim floats.
  const float* centroid(uint32_t code) const;

 private:
  uint32_t dim_ = 0;
  uint32_t n_codes_ = 0;
  uint32_t units_ = 0;  // 10^q
  RelativePtr<float> centroids_;
};

}  // namespace p2b
