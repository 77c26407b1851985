// The signed shuffler-key list (docs/formats.md, "Shuffler key list"): which
// X25519 key new envelopes are sealed to, and which older keys the shuffler
// still accepts. Fixed length, little-endian:
//
//   "P2BL" | u32 format (1) | u64 version | u64 created_unix | u64 not_after_unix
//   | signer_fp[16] | u8 count | u8 current | 6 zero bytes
//   | 4 x 32-byte X25519 key slots (slots >= count all zero)
//   | Ed25519 signature[64] over every byte before it
//
// The analyzer's model-signing key signs it; the magic keeps it from ever
// passing for a model (P2BM) or a batch ack (P2BK). This file only encodes
// and checks the structure; Agent::apply_key_list verifies the signature.
#pragma once

#include <cstddef>
#include <cstdint>

#include "p2b/crypto.hpp"
#include "p2b/status.hpp"

namespace p2b {

constexpr uint32_t kKeyListFormat = 1;
constexpr std::size_t kKeyListMaxKeys = 4;
constexpr std::size_t kKeyListSignedBytes = 56 + kKeyListMaxKeys * kPublicKeyBytes;
constexpr std::size_t kKeyListBytes = kKeyListSignedBytes + kSignatureBytes;
static_assert(kKeyListBytes == 248, "docs/formats.md gives the layout");

struct KeyList {
  uint64_t version;         // >= 1; strictly increasing (devices refuse rollback)
  uint64_t created_unix;    // informational
  uint64_t not_after_unix;  // 0: none; else the last second it may be applied
  uint8_t signer_fp[kFingerprintBytes];
  uint32_t count;    // 1..kKeyListMaxKeys keys in use
  uint32_t current;  // < count: the key new envelopes are sealed to
  uint8_t keys[kKeyListMaxKeys][kPublicKeyBytes];
};

// Checks every field of `bytes` (kKeyListBytes, signature not verified) and
// fills `out`: malformed_input for a wrong length, magic, count, current
// index, a non-zero reserved byte or unused slot, an all-zero or repeated
// key, or a not-after time before the creation time; unsupported_version for
// another format. `out` is written only on success.
Status parse_key_list(const uint8_t* bytes, std::size_t len, KeyList* out);

// Writes the kKeyListSignedBytes a signer signs; `list` must pass the same
// checks (malformed_input otherwise, nothing written).
Status encode_key_list(const KeyList& list, uint8_t* out);

}  // namespace p2b
