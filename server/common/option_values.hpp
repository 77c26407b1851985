// Checked conversions of command-line and config-file values. Each refuses
// anything but the whole string in range (no "3x", "-1", "nan").
#pragma once

#include <cstdint>
#include <string>

namespace p2b::common {

// Decimal digits only.
bool parse_count(const std::string& text, uint64_t lo, uint64_t hi, uint64_t* out);
// A finite number.
bool parse_real(const std::string& text, double lo, double hi, double* out);
// HOST:PORT, with [v6]:PORT for an IPv6 host; port 0..65535.
bool parse_listen(const std::string& text, std::string* host, int* port);

// "--name: expected <what>, got '<value>'", the one shape of every refusal.
std::string bad_value(const std::string& name, const std::string& what, const std::string& value);

}  // namespace p2b::common
