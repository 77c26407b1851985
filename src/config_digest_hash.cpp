#include "config_digest_hash.hpp"

namespace p2b {

uint64_t fnv1a64(const void* data, std::size_t len, uint64_t h) {
  const auto* p = static_cast<const uint8_t*>(data);
  for (std::size_t i = 0; i < len; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace p2b
