#include "p2b/envelope.hpp"

#include <pb_encode.h>

#include <cstring>

#include "p2b.pb.h"

namespace p2b {

// Delimited encodings must fit their padded slots whatever the field values.
static_assert(p2b_v1_Report_size + 1 <= kInnerPlainBytes, "inner slot too small");
static_assert(p2b_v1_Envelope_size + 2 <= kOuterPlainBytes, "outer slot too small");

namespace {

// varint(len) || message || zeros: every plaintext of a layer has one length.
bool encode_padded(const pb_msgdesc_t* fields, const void* msg, uint8_t* out, std::size_t n) {
  std::memset(out, 0, n);
  pb_ostream_t os = pb_ostream_from_buffer(out, n);
  return pb_encode_delimited(&os, fields, msg);
}

}  // namespace

Status key_fingerprint(const CryptoPort& crypto, const uint8_t* pk, uint8_t* fp) {
  if (pk == nullptr || fp == nullptr) return Status::null_pointer;
  return crypto.hash(fp, kFingerprintBytes, pk, kPublicKeyBytes) == 0 ? Status::ok
                                                                      : Status::crypto_failure;
}

Status seal_envelope(const CryptoPort& crypto, const SealingKeys& keys, const TupleToSeal& t,
                     uint8_t* out) {
  p2b_v1_Report report = p2b_v1_Report_init_zero;
  report.code = t.code;
  report.action = t.action;
  report.reward = t.reward;
  report.model_version = t.model_version;
  std::memcpy(report.analyzer_key_fp, keys.analyzer_fp, kFingerprintBytes);
  uint8_t inner_plain[kInnerPlainBytes];
  if (!encode_padded(p2b_v1_Report_fields, &report, inner_plain, sizeof inner_plain)) {
    return Status::crypto_failure;  // unreachable: sizes are static_asserted above
  }

  p2b_v1_Envelope env = p2b_v1_Envelope_init_zero;
  env.crowd_id = t.code;
  std::memcpy(env.inner, keys.analyzer_fp, kFingerprintBytes);
  if (crypto.seal(env.inner + kFingerprintBytes, inner_plain, sizeof inner_plain,
                  keys.analyzer_pk) != 0) {
    return Status::crypto_failure;
  }
  std::memcpy(env.shuffler_key_fp, keys.shuffler_fp, kFingerprintBytes);
  uint8_t outer_plain[kOuterPlainBytes];
  if (!encode_padded(p2b_v1_Envelope_fields, &env, outer_plain, sizeof outer_plain)) {
    return Status::crypto_failure;  // unreachable, as above
  }
  std::memcpy(out, keys.shuffler_fp, kFingerprintBytes);
  if (crypto.seal(out + kFingerprintBytes, outer_plain, sizeof outer_plain, keys.shuffler_pk) !=
      0) {
    return Status::crypto_failure;
  }
  return Status::ok;
}

}  // namespace p2b
