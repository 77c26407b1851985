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
  StatusError(p2b_status status, const std::string& where);
  p2b_status status() const { return status_; }

 private:
  p2b_status status_;
};

// Throws StatusError unless `s` is P2B_OK; `where` names the C call.
void check(p2b_status s, const char* where);

}  // namespace p2b::python
