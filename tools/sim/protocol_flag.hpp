// Which simulator p2b-sim runs: each protocol has its own options, so the
// dispatch reads --protocol (either spelling) before any parser sees argv.
#pragma once

#include <cstring>

namespace p2b::sim {

inline bool wants_protocol(int argc, char** argv, const char* name) {
  const std::size_t n = std::strlen(name);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--protocol=", 11) == 0 && std::strcmp(argv[i] + 11, name) == 0) {
      return true;
    }
    if (std::strcmp(argv[i], "--protocol") == 0 && i + 1 < argc &&
        std::strncmp(argv[i + 1], name, n + 1) == 0) {
      return true;
    }
  }
  return false;
}

}  // namespace p2b::sim
