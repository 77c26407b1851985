#include "common/version.hpp"

#include "p2b.h"

namespace p2b::common {

std::string version_line(const std::string& program) {
  return program + " " + P2B_VERSION_STRING;
}

std::string version_string() {
  return P2B_VERSION_STRING;
}

}  // namespace p2b::common
