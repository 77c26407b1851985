// Include last in a test: from here on every call to a status-returning
// function of p2b.h goes through p2b_doc::checked, which fails the running
// test when the function returns a status its \retval list in p2b.h does not
// document. The table and the wrapping macros are generated from the header
// at build time (documented_statuses.cmake), so they follow it.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "p2b.h"

namespace p2b_doc {

inline const std::map<std::string, std::set<int>>& documented() {
  static const std::map<std::string, std::set<int>> table = {
#include "c_api_documented_statuses_table.inc"
  };
  return table;
}

[[nodiscard]] inline p2b_status checked(const char* function, p2b_status s) {
  const auto it = documented().find(function);
  if (it == documented().end()) {
    ADD_FAILURE() << function << " has no documented statuses";
  } else if (it->second.count(s) == 0) {
    ADD_FAILURE() << function << " returned " << p2b_status_str(s) << " (" << static_cast<int>(s)
                  << "), which p2b.h does not list among its \\retval statuses";
  }
  return s;
}

}  // namespace p2b_doc

#include "c_api_documented_statuses_wrap.inc"
