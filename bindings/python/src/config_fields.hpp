// Range checks on a constructor's fields, made before the C API sees them:
// the C API answers a bad field with P2B_ERR_BAD_CONFIG and nothing more, so
// Python would not learn which keyword was wrong. Each failure raises
// p2b.BadConfigError as "n_actions = 0: must be in [1, 64]". The ranges are
// the C API's own (c_api/p2b.h, each config field's comment); the C API
// still checks everything after these.
#pragma once

#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "p2b.h"
#include "status_error.hpp"

namespace p2b::python {

[[noreturn]] inline void bad_field(const std::string& name, const std::string& value,
                                   const std::string& rule) {
  throw StatusError::with_message(P2B_ERR_BAD_CONFIG, name + " = " + value + ": " + rule);
}

// An integer field in [lo, hi].
inline void require_count(const std::string& name, uint64_t value, uint64_t lo, uint64_t hi) {
  if (value < lo || value > hi) {
    bad_field(name, std::to_string(value),
              "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
}

// An integer field with no upper bound but its type's.
inline void require_at_least(const std::string& name, uint64_t value, uint64_t lo) {
  if (value < lo) bad_field(name, std::to_string(value), "must be >= " + std::to_string(lo));
}

// A real field; `ok` is the caller's test and `rule` says it in words. The
// value is shown as Python shows it (nan, inf, 1e-07).
inline void require_real(const std::string& name, double value, bool ok, const char* rule) {
  if (!ok) bad_field(name, pybind11::repr(pybind11::float_(value)).cast<std::string>(), rule);
}

// lo <= x <= hi; NaN and the infinities fail.
inline bool finite_in(double x, double lo, double hi) {
  return std::isfinite(x) && x >= lo && x <= hi;
}

}  // namespace p2b::python
