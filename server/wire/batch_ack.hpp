// The analyzer's proof that it applied one exact batch, and what became of
// each of its records (docs/formats.md):
//
//   "P2BK" | u32le format (2) | batch_id[16] | batch_digest[32]
//          | u64le model_version | u32le records | u32le applied
//          | u32le quarantined | u32le refused[kAckRefusalReasons]
//          | Ed25519 signature[64] over every byte before it
//
// Signed with the analyzer's model-signing key; the magic keeps an ack from
// ever verifying as a model bundle ("P2BM") and the other way round. The
// shuffler deletes a batch only after an ack whose id and digest are those
// of the batch it sent and whose counts add up to its records
// (shuffler/ack_check.hpp). Format 1 (no counts) is refused as malformed.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "wire/batch_format.hpp"

namespace p2b::server {

// One slot per analyzer::RejectReason, in its order.
constexpr std::size_t kAckRefusalReasons = 9;

constexpr std::size_t kBatchAckBytes =
    4 + 4 + kBatchIdBytes + kBatchDigestBytes + 8 + 4 * (3 + kAckRefusalReasons) + kSignatureBytes;

struct BatchAck {
  BatchId id{};
  BatchDigest digest{};
  uint64_t model_version = 0;  // the version the batch's application produced
  uint32_t records = 0;        // in the batch
  uint32_t applied = 0;        // taken into the statistics
  uint32_t quarantined = 0;    // kept durably by the analyzer, not applied (yet)
  std::array<uint32_t, kAckRefusalReasons> refused{};  // dropped by design, by reason

  // The three fates summed, without overflow.
  uint64_t accounted() const {
    uint64_t n = uint64_t{applied} + quarantined;
    for (const uint32_t r : refused) n += r;
    return n;
  }
};

// `sign_sk` is the 64-byte Ed25519 secret key.
std::vector<uint8_t> encode_signed_ack(const BatchAck& ack, const uint8_t* sign_sk);

enum class AckCheck { ok, malformed, bad_signature };

// Fills `out` only if `data` is an ack signed by `verify_pk` (32 bytes).
// Checks the form and the signature only; whether the ack matches a batch
// is the caller's question.
AckCheck verify_ack(const uint8_t* data, std::size_t len, const uint8_t* verify_pk, BatchAck* out);

}  // namespace p2b::server
