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

namespace p2b::python {

// Rows of `cols` numbers as float32, C-contiguous: a float32 array as it is
// (copied only when not C-contiguous), a float64 one converted. Raises
// TypeError for another dtype and ValueError, naming the shape expected, for
// anything but (n, cols).
using Float32Rows = pybind11::array_t<float, pybind11::array::c_style | pybind11::array::forcecast>;
Float32Rows float32_rows(const pybind11::handle& x, std::size_t cols, const char* what);

// Raises the C API's NonFiniteError or NegativeContextError for the first
// entry of n x cols contexts it would refuse, naming it as what[i, j], so a
// batch can be checked whole before any row changes the agent.
void check_context_rows(const float* x, std::size_t n, std::size_t cols, const char* what);

}  // namespace p2b::python
