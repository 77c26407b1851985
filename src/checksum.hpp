// Integrity checks for saved state and configuration digests. These detect
// accidents (truncation, bit rot), not attackers; signed formats come later.
#pragma once

#include <cstddef>
#include <cstdint>

namespace p2b {

uint32_t crc32(const uint8_t* data, std::size_t len);

// FNV-1a, 64-bit, chainable through `h`.
uint64_t fnv1a64(const void* data, std::size_t len, uint64_t h = 0xcbf29ce484222325ULL);

}  // namespace p2b
