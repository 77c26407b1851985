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
constexpr std::size_t kAeadKeyBytes = 32;       // XChaCha20-Poly1305 key
constexpr std::size_t kAeadNonceBytes = 24;
constexpr std::size_t kAeadTagBytes = 16;

struct CryptoPort {
  // Anonymous public-key encryption (crypto_box_seal semantics): writes
  // len + kSealOverheadBytes bytes to `out`. Returns 0 on success.
  int (*seal)(uint8_t* out, const uint8_t* msg, std::size_t len, const uint8_t* recipient_pk);
  // Unkeyed BLAKE2b with an output of 16..64 bytes. Returns 0 on success.
  int (*hash)(uint8_t* out, std::size_t out_len, const uint8_t* msg, std::size_t len);
  // Ed25519 detached verification. Returns 0 when `sig` is valid.
  int (*verify)(const uint8_t* sig, const uint8_t* msg, std::size_t len, const uint8_t* signer_pk);
  // XChaCha20-Poly1305 (IETF): `out` gets len + kAeadTagBytes bytes and may
  // alias `msg`. Returns 0 on success.
  int (*aead_encrypt)(uint8_t* out, const uint8_t* msg, std::size_t len, const uint8_t* ad,
                      std::size_t ad_len, const uint8_t* nonce, const uint8_t* key);
  // The inverse; `out` (len - kAeadTagBytes bytes) may alias `box`. Returns 0
  // only when the tag verifies.
  int (*aead_decrypt)(uint8_t* out, const uint8_t* box, std::size_t len, const uint8_t* ad,
                      std::size_t ad_len, const uint8_t* nonce, const uint8_t* key);
  // Fresh unpredictable bytes for nonces, even when decisions run seeded.
  int (*random)(uint8_t* out, std::size_t len);
};

}  // namespace p2b
