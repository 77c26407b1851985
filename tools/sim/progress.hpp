// A one-line progress bar on stderr, redrawn in place, for long tool runs.
#pragma once

#include <cstdio>

namespace p2b::sim {

inline void progress(const char* stage, double done, double total) {
  const int width = 30;
  const int filled = static_cast<int>(width * done / total);
  std::fprintf(stderr, "\r  %-26s [%.*s%*s] %5.1f%%", stage, filled,
               "##############################", width - filled, "", 100.0 * done / total);
  if (done >= total) std::fputc('\n', stderr);
  std::fflush(stderr);
}

}  // namespace p2b::sim
