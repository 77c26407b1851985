// A non-OK p2b_status on its way to Python. The translator registered in
// status_error.cpp raises it as the p2b.errors class of that status, so
// Python code catches p2b.P2BError or one status's subclass.
#pragma once

#include <stdexcept>
#include <string>

#include "p2b.h"

namespace p2b::python {

class StatusError : public std::runtime_error {
 public:
  // "where: <the status's English name>", as a C caller would see it.
  StatusError(p2b_status status, const std::string& where);
  // A message the binding wrote itself, e.g. one naming the field and its
  // range, for what the binding checks before calling the C API.
  static StatusError with_message(p2b_status status, const std::string& message);
  p2b_status status() const { return status_; }

 private:
  struct Verbatim {};
  StatusError(p2b_status status, const std::string& message, Verbatim);
  p2b_status status_;
};

// Throws StatusError unless `s` is P2B_OK; `where` names the C call.
void check(p2b_status s, const char* where);

}  // namespace p2b::python
