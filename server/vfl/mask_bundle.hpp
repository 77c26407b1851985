// The P2BQ bundle: the PMG's signed delivery of one party's mask block,
// sealed to that party (docs/formats.md, "Vertical federation: mask bundle").
// Keys are the raw files p2b-keygen writes (docs/keys.md): a 64-byte Ed25519
// secret key for the PMG, 32-byte X25519 pairs for the parties.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "vfl/mask.hpp"

namespace p2b::vfl {

constexpr uint32_t kMaskBundleFormat = 1;
// magic, format, d, party_index, n_parties, mask_id, epoch, created_unix,
// signer_fp: everything but the partition and the block.
constexpr std::size_t kMaskBundleFixedBytes = 68;
constexpr std::size_t kMaskBundleSignatureBytes = 64;
constexpr std::size_t kMaskBundleSealBytes = 48;

// The signed bytes: 68 + 4 n_parties + 8 d d_j.
std::size_t mask_bundle_signed_bytes(uint32_t n_parties, uint32_t d, uint32_t d_j);
// What travels: signed bytes + 64 (signature) + 48 (seal) = 180 + 4 M + 8 d d_j.
std::size_t mask_bundle_sealed_bytes(uint32_t n_parties, uint32_t d, uint32_t d_j);

struct MaskVersion {
  uint8_t mask_id[kMaskIdBytes] = {};
  uint64_t epoch = 0;
};

struct OpenedBundle {
  MaskBlock block;
  uint64_t created_unix = 0;
  uint8_t signer_fp[16] = {};
};

// Signed plaintext of party j's bundle, without the seal: what
// seal_mask_bundle seals. False, with a reason, on a bad mask or partition.
bool encode_mask_bundle(const Mask& mask, const Partition& partition, uint32_t party_index,
                        uint64_t created_unix, const uint8_t* pmg_sign_sk,
                        std::vector<uint8_t>* out, std::string* err);

// The PMG's side: encode_mask_bundle, then crypto_box_seal to the party's
// X25519 public key, so only that party reads its block.
bool seal_mask_bundle(const Mask& mask, const Partition& partition, uint32_t party_index,
                      uint64_t created_unix, const uint8_t* pmg_sign_sk,
                      const uint8_t* party_box_pk, std::vector<uint8_t>* out, std::string* err);

enum class BundleStatus {
  ok,
  bad_length,        // too short, or a length its own header does not give
  not_openable,      // the seal does not open: another recipient, or any changed bit
  malformed,         // not "P2BQ", or a format other than 1
  untrusted_signer,  // signed by a key other than the pinned PMG key
  bad_signature,     // names the pinned key but its signature does not verify
  wrong_party,       // a block for another party index
  wrong_dimension,   // a d other than the expected one
  bad_partition,     // d_j not summing to d, or no block for the party index
  zero_block,        // a party with d_j = 0
  rollback,          // epoch <= the last one accepted
  not_orthonormal,   // max |Q^jT Q^j - I| > 1e-12 d, or a non-finite value
};

const char* bundle_status_name(BundleStatus s);

struct BundleExpect {
  uint32_t party_index = 0;
  uint32_t d = 0;
  const MaskVersion* last_accepted = nullptr;  // nullptr: none yet
};

// The party's side. `out` is written only when the result is ok.
BundleStatus open_mask_bundle(const uint8_t* sealed, std::size_t len, const uint8_t* party_box_pk,
                              const uint8_t* party_box_sk, const uint8_t* pmg_sign_pk,
                              const BundleExpect& expect, OpenedBundle* out);

// The checks after the seal, on the signed plaintext (tests and fuzzing
// reach them without sealing).
BundleStatus verify_mask_bundle(const uint8_t* plain, std::size_t len, const uint8_t* pmg_sign_pk,
                                const BundleExpect& expect, OpenedBundle* out);

}  // namespace p2b::vfl
