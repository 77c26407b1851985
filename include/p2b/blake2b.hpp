// BLAKE2b (RFC 7693), built into the core so that fingerprints of keys and
// codebooks, and the MAC of a saved state, can be computed on every port,
// including P2B_PORT=none where no crypto library exists. Sealing,
// signatures and encryption at rest still go through the crypto port.
#pragma once

#include <cstddef>
#include <cstdint>

namespace p2b {

constexpr std::size_t kBlake2bMaxOutBytes = 64;
constexpr std::size_t kBlake2bMaxKeyBytes = 64;

// Writes BLAKE2b-(8*out_len) of `msg` to `out`. Returns 0 on success and -1
// when out_len is not in 1..64 or a pointer is null with a non-zero length;
// the signature matches CryptoPort::hash so it can stand in for it.
int blake2b(uint8_t* out, std::size_t out_len, const uint8_t* msg, std::size_t len);

// Keyed BLAKE2b (a MAC, RFC 7693 section 3.3) with a key of 0..64 bytes; a
// key of 0 bytes is the unkeyed hash. Returns 0, or -1 for a bad length or
// a null pointer with a non-zero length.
int blake2b_keyed(uint8_t* out, std::size_t out_len, const uint8_t* key, std::size_t key_len,
                  const uint8_t* msg, std::size_t len);

}  // namespace p2b
