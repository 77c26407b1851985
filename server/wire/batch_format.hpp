// The shuffler -> analyzer batch: what survives shuffling and thresholding,
// as opaque inner ciphertexts, under an idempotency id.
//
//   "P2BB" | u32le format (1) | batch_id[16] | u32le count | count * inner[112]
//
// Records are fixed-size, so a batch is validated by its length alone before
// any record is looked at. The batch id is random (CSPRNG) and lets the
// analyzer acknowledge a re-sent batch without applying it twice.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "p2b/envelope.hpp"

namespace p2b::server {

constexpr std::size_t kBatchIdBytes = 16;
constexpr std::size_t kBatchHeaderBytes = 4 + 4 + kBatchIdBytes + 4;
// A batch above this many records is refused: it bounds request bodies.
constexpr std::size_t kMaxBatchRecords = 1u << 20;

using BatchId = std::array<uint8_t, kBatchIdBytes>;
using InnerCiphertext = std::array<uint8_t, kInnerBytes>;

struct Batch {
  BatchId id{};
  std::vector<InnerCiphertext> records;
};

std::vector<uint8_t> encode_batch(const Batch& batch);

// False, with a reason, for a wrong magic, format, count or length.
bool decode_batch(const uint8_t* data, std::size_t len, Batch* out, std::string* err);

std::string batch_id_hex(const BatchId& id);

}  // namespace p2b::server
