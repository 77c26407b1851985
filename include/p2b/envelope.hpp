// The two-layer report envelope (docs/formats.md), fixed length for a
// given build:
//
//   envelope = shuffler_fp[16] || seal_shuffler( pad128( Envelope{crowd_id, inner, shuffler_fp} ) )
//   inner    = analyzer_fp[16] || seal_analyzer( pad48( Report{code, action, reward, version,
//   analyzer_fp} ) )
//
// pad<N>(m) = varint(len(m)) || m || zeros up to N bytes. The cleartext key
// fingerprints let a service route or reject an envelope before decrypting;
// every device of one deployment carries the same ones, so they say nothing
// about the sender. Inside, the fingerprints are repeated and authenticated.
#pragma once

#include <cstddef>
#include <cstdint>

#include "p2b/crypto.hpp"
#include "p2b/status.hpp"

namespace p2b {

constexpr std::size_t kInnerPlainBytes = 48;
constexpr std::size_t kInnerBytes = kFingerprintBytes + kInnerPlainBytes + kSealOverheadBytes;
constexpr std::size_t kOuterPlainBytes = 144;
constexpr std::size_t kEnvelopeBytes = kFingerprintBytes + kOuterPlainBytes + kSealOverheadBytes;
static_assert(kInnerBytes == 112, "Envelope.inner max_size in proto/p2b.options must match");
static_assert(kEnvelopeBytes <= 256, "envelope budget");

struct TupleToSeal {
  uint32_t code;
  uint32_t action;
  float reward;
  uint64_t model_version;
};

struct SealingKeys {
  const uint8_t* shuffler_pk;  // kPublicKeyBytes
  const uint8_t* shuffler_fp;  // kFingerprintBytes
  const uint8_t* analyzer_pk;
  const uint8_t* analyzer_fp;
};

// Encodes and seals `t` into exactly kEnvelopeBytes at `out`. No heap; the
// scratch is on the stack (under 400 bytes).
Status seal_envelope(const CryptoPort& crypto, const SealingKeys& keys, const TupleToSeal& t,
                     uint8_t* out);

// BLAKE2b-128 fingerprint of a public key.
Status key_fingerprint(const CryptoPort& crypto, const uint8_t* pk, uint8_t* fp);

}  // namespace p2b
