// Small text helpers shared by the ARFF and CSV readers.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace p2b::data {

std::string_view trim(std::string_view s);
bool iequals(std::string_view a, std::string_view b);
bool istarts_with(std::string_view s, std::string_view prefix);

// Parses the whole of `s` (surrounding blanks allowed, an optional '+') as a
// finite double, independent of the C locale. False on anything else.
bool parse_finite(std::string_view s, double& out);

// The whole file, refusing anything larger than max_bytes; throws
// std::runtime_error naming the path.
std::string read_file(const std::string& path, size_t max_bytes);

}  // namespace p2b::data
