// NumPy .npy arrays (format versions 1.0, 2.0 and 3.0) of float32 or
// float64, either byte order, C or Fortran order. Read into doubles in C
// (row-major) order. The bytes are untrusted: every field is checked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace p2b::data {

struct NpyArray {
  std::vector<size_t> shape;   // empty for a 0-d array
  std::vector<double> values;  // product of shape, C order
};

// Throws std::runtime_error "<name>: <problem>". max_values bounds the
// element count before anything is allocated.
NpyArray parse_npy(const uint8_t* data, size_t size, const std::string& name,
                   size_t max_values = size_t{1} << 26);

}  // namespace p2b::data
