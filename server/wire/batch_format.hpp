// The shuffler -> analyzer batch: what survives shuffling and thresholding,
// each inner ciphertext with the crowd id the shuffler counted it under,
// signed by the shuffler (docs/formats.md).
//
//   "P2BB" | u32le format (3) | batch_id[16] | u32le partition | signer_fp[16]
//          | u32le threshold_l | u64le threshold_sigma (IEEE-754 binary64 bits)
//          | u32le count | count * (u32le crowd_id | inner[112])
//          | Ed25519 signature[64] over every byte before it
//
// Records are fixed-size, so a batch is validated by its length alone before
// any record is looked at. The batch id is random (CSPRNG) and lets the
// analyzer acknowledge a re-sent batch without applying it twice; the batch
// digest (BLAKE2b-256 of every signed byte) binds that id to the partition,
// the signer, the crowd thresholds and the contents.
//
// The thresholds are signed so that the analyzer can refuse a batch from a
// shuffler configured with another l or sigma than its own: the two must
// agree, or a crowd the analyzer would refuse was already released by the
// shuffler's rule, or the other way round. Format 2 (no thresholds) is
// refused with its own message, never read as format 3.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "p2b/crypto.hpp"
#include "p2b/envelope.hpp"

namespace p2b::server {

constexpr std::size_t kBatchIdBytes = 16;
constexpr std::size_t kBatchHeaderBytes = 4 + 4 + kBatchIdBytes + 4 + kFingerprintBytes + 4 + 8 + 4;
constexpr std::size_t kBatchRecordBytes = 4 + kInnerBytes;
constexpr std::size_t kBatchDigestBytes = 32;
// A batch above this many records is refused: it bounds request bodies.
constexpr std::size_t kMaxBatchRecords = 1u << 20;
constexpr std::size_t kMaxBatchBytes =
    kBatchHeaderBytes + kMaxBatchRecords * kBatchRecordBytes + kSignatureBytes;

using BatchId = std::array<uint8_t, kBatchIdBytes>;
using BatchDigest = std::array<uint8_t, kBatchDigestBytes>;
using InnerCiphertext = std::array<uint8_t, kInnerBytes>;
// BLAKE2b-256 of one inner ciphertext: what inner replays are recognised by.
using InnerDigest = std::array<uint8_t, 32>;

struct BatchRecord {
  uint32_t crowd_id = 0;
  InnerCiphertext inner{};
  bool operator==(const BatchRecord& o) const { return crowd_id == o.crowd_id && inner == o.inner; }
};

// The crowd thresholds a shuffler applies (its --threshold and
// --noisy-threshold), as one batch carries them. `sigma` is finite and not
// negative (-0 included): one value, one encoding.
struct BatchThresholds {
  uint32_t l = 10;
  double sigma = 0;
};

// Equal when l is equal and sigma has the same bits (both canonical).
bool same_thresholds(const BatchThresholds& a, const BatchThresholds& b);
// "l=10 sigma=0", for logs and error messages.
std::string thresholds_str(const BatchThresholds& t);

struct Batch {
  BatchId id{};
  uint32_t partition = 0;
  std::vector<BatchRecord> records;
  BatchThresholds thresholds;
};

// A pinned Ed25519 verify key and its BLAKE2b-128 fingerprint.
struct VerifyKey {
  uint8_t pk[kPublicKeyBytes];
  uint8_t fp[kFingerprintBytes];
};

// Derives the fingerprint; false if libsodium cannot start.
bool make_verify_key(const uint8_t* pk, VerifyKey* out);

// Encodes `batch` and signs it with the 64-byte Ed25519 secret key `sign_sk`
// (seed || public key), whose public half names the signer.
std::vector<uint8_t> encode_signed_batch(const Batch& batch, const uint8_t* sign_sk);

enum class BatchCheck {
  ok,
  malformed,       // wrong magic, format, count, length or thresholds
  unknown_signer,  // the signer fingerprint names none of the pinned keys
  bad_signature,   // a pinned signer, but the signature does not verify
};

const char* batch_check_str(BatchCheck c);

struct VerifiedBatch {
  Batch batch;
  BatchDigest digest{};
  uint8_t signer_fp[kFingerprintBytes] = {};
};

// Checks the structure, then the signer, then the signature; fills `out`
// only when everything holds. `err` gets a reason otherwise.
BatchCheck verify_batch(const uint8_t* data, std::size_t len, const VerifyKey* keys,
                        std::size_t n_keys, VerifiedBatch* out, std::string* err);

// The record count a batch's header declares, read without checking
// anything else (0 if `len` is too short to hold it), so that a receiver
// can refuse a batch over its own limit before any other work on it.
uint32_t declared_record_count(const uint8_t* data, std::size_t len);

// BLAKE2b-256 of the signed part of an encoded batch (all but the signature).
// `len` must be at least kSignatureBytes.
BatchDigest batch_digest(const uint8_t* encoded, std::size_t len);

InnerDigest inner_digest(const InnerCiphertext& inner);

std::string hex_of(const uint8_t* p, std::size_t n);
std::string batch_id_hex(const BatchId& id);

}  // namespace p2b::server
