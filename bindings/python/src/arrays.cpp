#include "arrays.hpp"

#include <pybind11/pytypes.h>

#include <cmath>

#include "status_error.hpp"

namespace py = pybind11;

namespace p2b::python {
namespace {

template <typename T>
py::array_t<T, py::array::c_style> typed_array(const py::handle& x, int ndim, const char* what,
                                               const char* dtype) {
  if (!py::isinstance<py::array>(x)) {
    throw py::type_error(std::string(what) + ": expected a numpy " + dtype + " array");
  }
  const auto a = py::reinterpret_borrow<py::array>(x);
  if (!a.dtype().is(py::dtype::of<T>())) {
    throw py::type_error(std::string(what) + ": expected dtype " + dtype + ", got " +
                         std::string(py::str(a.dtype())));
  }
  if (a.ndim() != ndim) {
    throw py::value_error(std::string(what) + ": expected " + std::to_string(ndim) +
                          "-D array, got " + std::to_string(a.ndim()) + "-D");
  }
  return py::array_t<T, py::array::c_style>::ensure(a);
}

}  // namespace

py::array_t<float, py::array::c_style> float32_array(const py::handle& x, int ndim,
                                                     const char* what) {
  return typed_array<float>(x, ndim, what, "float32");
}

py::array_t<double, py::array::c_style> float64_array(const py::handle& x, int ndim,
                                                      const char* what) {
  return typed_array<double>(x, ndim, what, "float64");
}

Float32Rows float32_rows(const py::handle& x, std::size_t cols, const char* what) {
  if (!py::isinstance<py::array>(x)) {
    throw py::type_error(std::string(what) + ": expected a numpy float32 or float64 array");
  }
  const auto a = py::reinterpret_borrow<py::array>(x);
  if (!a.dtype().is(py::dtype::of<float>()) && !a.dtype().is(py::dtype::of<double>())) {
    throw py::type_error(std::string(what) + ": expected dtype float32 or float64, got " +
                         std::string(py::str(a.dtype())));
  }
  if (a.ndim() != 2 || static_cast<std::size_t>(a.shape(1)) != cols) {
    throw py::value_error(std::string(what) + ": expected shape (n, " + std::to_string(cols) +
                          "), got " + std::string(py::str(py::tuple(a.attr("shape")))));
  }
  return Float32Rows::ensure(a);
}

void check_context_rows(const float* x, std::size_t n, std::size_t cols, const char* what) {
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      const float v = x[i * cols + j];
      if (std::isfinite(v) && v >= 0.0F) continue;
      const std::string entry = std::string(what) + "[" + std::to_string(i) + ", " +
                                std::to_string(j) +
                                "] = " + py::repr(py::float_(v)).cast<std::string>();
      if (!std::isfinite(v)) {
        throw StatusError::with_message(P2B_ERR_NON_FINITE, entry + ": must be finite");
      }
      throw StatusError::with_message(P2B_ERR_NEGATIVE_CONTEXT, entry + ": must be >= 0");
    }
  }
}

std::vector<uint8_t> byte_vector(const py::handle& b, std::size_t size, const char* what) {
  if (!PyObject_CheckBuffer(b.ptr())) {
    throw py::type_error(std::string(what) + ": expected bytes");
  }
  const py::buffer_info info = py::reinterpret_borrow<py::buffer>(b).request();
  const auto n = static_cast<std::size_t>(info.size * info.itemsize);
  if (size != 0 && n != size) {
    throw py::value_error(std::string(what) + ": expected " + std::to_string(size) +
                          " bytes, got " + std::to_string(n));
  }
  const auto* p = static_cast<const uint8_t*>(info.ptr);
  return {p, p + n};
}

py::bytes to_bytes(const uint8_t* p, std::size_t n) {
  return {reinterpret_cast<const char*>(p), n};
}

}  // namespace p2b::python
