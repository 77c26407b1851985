#include "status_error.hpp"

#include <exception>

#include "bindings.hpp"

namespace py = pybind11;

namespace p2b::python {

StatusError::StatusError(p2b_status status, const std::string& where)
    : std::runtime_error(where + ": " + p2b_status_str(status)), status_(status) {}

StatusError::StatusError(p2b_status status, const std::string& message, Verbatim)
    : std::runtime_error(message), status_(status) {}

StatusError StatusError::with_message(p2b_status status, const std::string& message) {
  return {status, message, Verbatim{}};
}

void check(p2b_status s, const char* where) {
  if (s != P2B_OK) throw StatusError(s, where);
}

void register_status_error(py::module_& m) {
  // The classes live in Python (p2b/errors.py) so users can subclass and
  // type-check them; the translator looks the class up per status.
  // pybind11 wants a plain function pointer taking the pointer by value.
  py::register_exception_translator(
      [](std::exception_ptr p) {  // NOLINT(performance-unnecessary-value-param)
        try {
          if (p) std::rethrow_exception(p);
        } catch (const StatusError& e) {
          const py::object cls =
              py::module_::import("p2b.errors").attr("error_class")(static_cast<int>(e.status()));
          const py::object exc = cls(static_cast<int>(e.status()), e.what());
          PyErr_SetObject(cls.ptr(), exc.ptr());
        }
      });
  m.def(
      "status_str", [](int s) { return std::string(p2b_status_str(static_cast<p2b_status>(s))); },
      py::arg("status"), "The C library's English name of a status code (p2b_status_str).");
}

}  // namespace p2b::python
