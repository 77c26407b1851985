// The messages of a simulator's validate(): one line naming the field by its
// command-line flag, its value and what it may be, the same in p2b-sim's
// exit-2 message and in Python's ValueError.
#pragma once

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace p2b::tools {

// "--rounds = 0: must be in [1, 1073741824]", or "" when lo <= v <= hi.
template <typename T>
std::string check_range(const std::string& flag, T v, T lo, T hi) {
  if (lo <= v && v <= hi) return {};
  std::ostringstream s;
  s << flag << " = " << v << ": must be in [" << lo << ", " << hi << "]";
  return s.str();
}

// The same for each value of a list flag ("--dims = 1: must be in [2, 64]"),
// and for an empty list ("--dims is empty: give at least one value").
template <typename T>
std::string check_each(const std::string& flag, const std::vector<T>& v, T lo, T hi) {
  if (v.empty()) return flag + " is empty: give at least one value";
  for (const T& x : v) {
    if (std::string why = check_range(flag, x, lo, hi); !why.empty()) return why;
  }
  return {};
}

// "--mode = paper: must be one of default, reference", or "".
inline std::string check_member(const std::string& flag, const std::string& v,
                                const std::vector<std::string>& allowed) {
  std::string list;
  for (const std::string& a : allowed) {
    if (a == v) return {};
    list += (list.empty() ? "" : ", ") + a;
  }
  return flag + " = " + v + ": must be one of " + list;
}

// The first non-empty message of `checks`, or "".
inline std::string first_problem(const std::vector<std::string>& checks) {
  for (const std::string& c : checks) {
    if (!c.empty()) return c;
  }
  return {};
}

}  // namespace p2b::tools
