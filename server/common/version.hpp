// The version every p2b program prints for --version.
#pragma once

#include <string>

namespace p2b::common {

// "<program> <version>", e.g. "p2b-shuffler 0.1.0": the device library's
// P2B_VERSION_STRING, so services and library never disagree.
std::string version_line(const std::string& program);

// The version alone ("0.1.0"), as /metrics reports it in <prefix>_build_info.
std::string version_string();

}  // namespace p2b::common
