// Checks on the arrays and byte strings Python passes in. The C API checks
// lengths itself (and answers with a status); these refuse what it cannot
// see: a wrong dtype, a wrong number of dimensions, a key of the wrong size.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace p2b::python {

// A float32 array of `ndim` dimensions, C-contiguous (copied only when it
// was not). Raises TypeError for another dtype, ValueError for another ndim.
pybind11::array_t<float, pybind11::array::c_style> float32_array(const pybind11::handle& x,
                                                                 int ndim, const char* what);

// The same for float64.
pybind11::array_t<double, pybind11::array::c_style> float64_array(const pybind11::handle& x,
                                                                  int ndim, const char* what);

// The bytes of a bytes-like object; ValueError unless it has `size` bytes
// (size 0: any length).
std::vector<uint8_t> byte_vector(const pybind11::handle& b, std::size_t size, const char* what);

pybind11::bytes to_bytes(const uint8_t* p, std::size_t n);

}  // namespace p2b::python
