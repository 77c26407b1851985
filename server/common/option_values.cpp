#include "common/option_values.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace p2b::common {

bool parse_count(const std::string& text, uint64_t lo, uint64_t hi, uint64_t* out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno != 0 || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool parse_real(const std::string& text, double lo, double hi, double* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(v) || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool parse_listen(const std::string& text, std::string* host, int* port) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  std::string h = text.substr(0, colon);
  if (h.size() > 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  uint64_t p = 0;
  if (!parse_count(text.substr(colon + 1), 0, 65535, &p)) return false;
  *host = h;
  *port = static_cast<int>(p);
  return true;
}

std::string bad_value(const std::string& name, const std::string& what, const std::string& value) {
  return "--" + name + ": expected " + what + ", got '" + value + "'";
}

}  // namespace p2b::common
