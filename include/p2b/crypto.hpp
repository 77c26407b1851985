// The crypto port: the core seals, hashes and verifies only through these
// function pointers, so it never includes sodium.h and a platform without
// libsodium can plug in its own primitives. ports/posix provides libsodium's.
#pragma once

#include <cstddef>
#include <cstdint>

namespace p2b {

constexpr std::size_t kPublicKeyBytes = 32;     // X25519 and Ed25519 public keys
constexpr std::size_t kSealOverheadBytes = 48;  // crypto_box_seal: ephemeral pk + MAC
constexpr std::size_t kFingerprintBytes = 16;   // BLAKE2b-128 of a public key
constexpr std::size_t kSignatureBytes = 64;     // Ed25519 detached signature

struct CryptoPort {
  // Anonymous public-key encryption (crypto_box_seal semantics): writes
  // len + kSealOverheadBytes bytes to `out`. Returns 0 on success.
  int (*seal)(uint8_t* out, const uint8_t* msg, std::size_t len, const uint8_t* recipient_pk);
  // Unkeyed BLAKE2b with an output of 16..64 bytes. Returns 0 on success.
  int (*hash)(uint8_t* out, std::size_t out_len, const uint8_t* msg, std::size_t len);
  // Ed25519 detached verification. Returns 0 when `sig` is valid.
  int (*verify)(const uint8_t* sig, const uint8_t* msg, std::size_t len, const uint8_t* signer_pk);
};

}  // namespace p2b
