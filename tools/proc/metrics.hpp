// Reading one value out of a Prometheus text exposition (/metrics).
#pragma once

#include <cstdlib>
#include <sstream>
#include <string>

namespace p2b::proc {

// Sum of every sample of `name` (all label sets); -1 if there is none.
inline double metric_value(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::string line;
  double sum = 0.0;
  bool found = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line.compare(0, name.size(), name) != 0) continue;
    const char next = line.size() > name.size() ? line[name.size()] : '\0';
    if (next != ' ' && next != '{') continue;  // a longer metric name
    const std::size_t space = line.rfind(' ');
    sum += std::strtod(line.c_str() + space + 1, nullptr);
    found = true;
  }
  return found ? sum : -1.0;
}

}  // namespace p2b::proc
