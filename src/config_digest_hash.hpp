// A non-cryptographic digest for configuration identity: saved state names
// the configuration it belongs to. Integrity itself is BLAKE2b (state) or
// Ed25519 (models), through the crypto port.
#pragma once

#include <cstddef>
#include <cstdint>

#include "p2b/config.hpp"

namespace p2b {

// FNV-1a, 64-bit, chainable through `h`.
uint64_t fnv1a64(const void* data, std::size_t len, uint64_t h = 0xcbf29ce484222325ULL);

// Digest of everything that gives saved state its meaning (every setting and
// every centroid bit); restore refuses state saved under another one.
uint64_t config_digest(const Config& cfg);

}  // namespace p2b
