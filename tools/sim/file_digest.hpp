// A file's SHA-256, so that a result row names the exact weights or data file
// that produced it (paths alone move and get overwritten).
#pragma once

#include <string>

namespace p2b::sim {

// Lower-case hex SHA-256 of the file's bytes; throws std::runtime_error
// naming the file when it cannot be read.
std::string file_sha256(const std::string& path);

}  // namespace p2b::sim
