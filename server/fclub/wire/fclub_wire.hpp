// The FCLUB wire formats (docs/formats.md, "FCLUB upload and download (P2BU,
// P2BD)"): an Upload or a Download, signed by its sender, padded to one fixed
// length per dim and sealed to its recipient.
//
//   frame  = magic ("P2BU" | "P2BD") | varint(len) | message (nanopb)
//            | Ed25519 signature[64] over every byte before it
//   padded = u32le len(frame) | frame | zero bytes, padded_size(dim) in all
//   wire   = crypto_box_seal_{recipient X25519}( padded )     (+48 bytes)
//
// padded_size(dim) = 4 + the largest frame at that dim: every field present,
// every varint at its widest. So every message of a deployment (one dim) has
// the same length on the wire, whatever it holds.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fclub/wire/fclub_messages.hpp"

namespace p2b::fclub {

constexpr std::size_t kSealBytes = 48;       // crypto_box_seal: ephemeral pk + MAC
constexpr std::size_t kSignatureBytes = 64;  // Ed25519, detached
constexpr std::size_t kMagicBytes = 4;
constexpr std::size_t kLengthPrefixBytes = 4;  // u32le len(frame) inside the padding

// The largest encoded message (without its delimiting varint) and frame
// (magic to signature) at `dim`, and the bytes on the wire. All are 0 for
// dim 0 or dim > kMaxDim.
std::size_t upload_message_max_bytes(uint32_t dim);
std::size_t download_message_max_bytes(uint32_t dim);
std::size_t upload_frame_max_bytes(uint32_t dim);
std::size_t download_frame_max_bytes(uint32_t dim);
std::size_t upload_wire_size(uint32_t dim);  // kLengthPrefixBytes + frame max + kSealBytes
std::size_t download_wire_size(uint32_t dim);

// The deployment fingerprint: BLAKE2b-128 of the global server's X25519 box
// public key (the key uploads are sealed to), by p2b::key_fingerprint.
bool deployment_fingerprint(const uint8_t* global_box_pk, uint8_t* fp);
// BLAKE2b-128 of an Ed25519 verify key, as signer_fp carries it.
bool signer_fingerprint(const uint8_t* verify_pk, uint8_t* fp);

// Why an opener refused; each has its own name (open_status_name), which
// also starts the text it writes to `err`.
enum class OpenStatus {
  ok,
  wrong_length,         // not the wire size of the expected dim (or of any dim 1..64)
  unseal_failed,        // crypto_box_seal_open failed: another recipient, or a changed bit
  bad_padding,          // length prefix out of range, or a non-zero padding byte
  bad_magic,            // not "P2BU" (upload) / "P2BD" (download)
  decode_error,         // delimiting, protobuf, missing stats, or a non-canonical encoding
  unknown_signer,       // signer_fp names no key the lookup knows
  bad_signature,        // the named key's signature does not verify
  wrong_format,         // format other than 1
  bad_dim,              // dim 0 or > 64, another dim than expected, or not the length's dim
  count_mismatch,       // gram_upper is not d(d+1)/2 values, or moment not d
  non_finite,           // a NaN or an infinity in the statistics (or the upload's ledger)
  count_overflow,       // stats.count > kMaxStatsCount (2^53)
  out_of_range,         // download kind not 0/1; upload epsilon_spent < 0 or delta not in [0, 1]
  deployment_mismatch,  // deployment_fp other than the expected one
};

const char* open_status_name(OpenStatus s);

// Who may sign: given a 16-byte signer_fp, writes the 32-byte Ed25519 verify
// key it names and returns true, or returns false for an unknown signer.
using SignerLookup = std::function<bool(const uint8_t* signer_fp, uint8_t* verify_pk)>;
using VerifyKey = std::array<uint8_t, 32>;
// A lookup over a fixed set of verify keys, fingerprinted once here.
SignerLookup pinned_signers(const std::vector<VerifyKey>& verify_keys);

struct OpenExpect {
  uint8_t deployment_fp[kFpBytes] = {};
  // The deployment's dim: the length must be its wire size and the message
  // must carry it. 0: any dim 1..64 whose wire size is the length.
  uint32_t dim = 0;
};

// Sealing: `sign_sk` is the sender's 64-byte Ed25519 secret key (signer_fp is
// its verify key's fingerprint, whatever `u.signer_fp` holds), and
// `recipient_box_pk` the recipient's X25519 key. The message must pass every
// check an opener makes (bar the signer and deployment, which are the
// recipient's to judge). Returns false with a reason in `err`, leaving
// `out` untouched.
bool seal_upload(const Upload& u, const uint8_t* sign_sk, const uint8_t* recipient_box_pk,
                 std::vector<uint8_t>* out, std::string* err);
bool seal_download(const Download& d, const uint8_t* sign_sk, const uint8_t* recipient_box_pk,
                   std::vector<uint8_t>* out, std::string* err);

// Opening: `out` is written only on ok; otherwise `err` gets
// "<status name>: <detail>". Nothing of the input is trusted. What the
// opener does not judge is the caller's: server_id, phase, seq or version
// order, cluster ids, and replays (sealing is randomized, so a replay is the
// same bytes again).
OpenStatus open_upload(const uint8_t* wire, std::size_t len, const uint8_t* recipient_box_pk,
                       const uint8_t* recipient_box_sk, const SignerLookup& signers,
                       const OpenExpect& expect, Upload* out, std::string* err);
OpenStatus open_download(const uint8_t* wire, std::size_t len, const uint8_t* recipient_box_pk,
                         const uint8_t* recipient_box_sk, const SignerLookup& signers,
                         const OpenExpect& expect, Download* out, std::string* err);

// The checks after unsealing, on the padded plaintext (len must be
// wire size - kSealBytes): what tests and fuzzing reach without the seal.
OpenStatus check_upload_plaintext(const uint8_t* padded, std::size_t len,
                                  const SignerLookup& signers, const OpenExpect& expect,
                                  Upload* out, std::string* err);
OpenStatus check_download_plaintext(const uint8_t* padded, std::size_t len,
                                    const SignerLookup& signers, const OpenExpect& expect,
                                    Download* out, std::string* err);

}  // namespace p2b::fclub
