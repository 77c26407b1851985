// The codebook file: the one format the encoder (device), the trainer and the
// analyzer share. Layout, all protobuf (proto/p2b.proto):
//   "P2BC" | delimited CodebookHeader | k delimited CodebookRow (codes 0..k-1)
// The header's fingerprint binds k, dim, q and every centroid bit, and a
// model bundle names the codebook it was built for by this fingerprint.
#pragma once

#include <cstddef>
#include <cstdint>

#include "p2b/crypto.hpp"
#include "p2b/status.hpp"

namespace p2b {

// The codebook_fp of a model bundle for a shared model (SharedModel::
// apply_model), which has no codebook: the 16 ASCII bytes "P2B-SHARED-MODEL".
// No BLAKE2b fingerprint will equal it, so an agent's bundle never applies to
// a shared model, nor a shared model's to an agent.
constexpr uint8_t kSharedModelCodebookFp[kFingerprintBytes] = {
    'P', '2', 'B', '-', 'S', 'H', 'A', 'R', 'E', 'D', '-', 'M', 'O', 'D', 'E', 'L'};

struct CodebookInfo {
  uint32_t k;
  uint32_t dim;
  uint32_t digits;  // q
  uint8_t fingerprint[kFingerprintBytes];
};

// BLAKE2b-128("P2BC" | u32le k | u32le dim | u32le q | BLAKE2b-256(centroids f32le)).
Status codebook_fingerprint(const CryptoPort& crypto, const float* centroids, uint32_t k,
                            uint32_t dim, uint32_t digits, uint8_t* fp);

// Exact size of the encoded file; writes it into `out` (capacity `cap`).
Status encoded_codebook_size(const float* centroids, uint32_t k, uint32_t dim, uint32_t digits,
                             std::size_t* bytes);
Status encode_codebook(const CryptoPort& crypto, const float* centroids, uint32_t k, uint32_t dim,
                       uint32_t digits, uint8_t* out, std::size_t cap, std::size_t* written);

// Parses an untrusted codebook file: every field is range-checked, rows must
// come in order with exactly `dim` finite values, nothing may follow them,
// and the fingerprint must match the content. Centroids go to `centroids`
// (capacity `cap` floats, row-major); `info` is written only on success, and
// on failure `centroids` may hold partial data that must not be used.
Status parse_codebook(const CryptoPort& crypto, const uint8_t* in, std::size_t len,
                      float* centroids, std::size_t cap, CodebookInfo* info);

}  // namespace p2b
