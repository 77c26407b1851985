// The analyzer's proof that it applied one exact batch (docs/formats.md):
//
//   "P2BK" | u32le format (1) | batch_id[16] | batch_digest[32]
//          | u64le model_version | Ed25519 signature[64] over every byte before it
//
// Signed with the analyzer's model-signing key; the magic keeps an ack from
// ever verifying as a model bundle ("P2BM") and the other way round. The
// shuffler deletes a batch only after an ack whose id and digest are those
// of the batch it sent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "wire/batch_format.hpp"

namespace p2b::server {

constexpr std::size_t kBatchAckBytes =
    4 + 4 + kBatchIdBytes + kBatchDigestBytes + 8 + kSignatureBytes;

struct BatchAck {
  BatchId id{};
  BatchDigest digest{};
  uint64_t model_version = 0;  // the version the batch's application produced
};

// `sign_sk` is the 64-byte Ed25519 secret key.
std::vector<uint8_t> encode_signed_ack(const BatchAck& ack, const uint8_t* sign_sk);

enum class AckCheck { ok, malformed, bad_signature };

// Fills `out` only if `data` is an ack signed by `verify_pk` (32 bytes).
AckCheck verify_ack(const uint8_t* data, std::size_t len, const uint8_t* verify_pk, BatchAck* out);

}  // namespace p2b::server
