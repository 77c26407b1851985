#include "envelope_open.hpp"

#include <pb_decode.h>
#include <sodium.h>

#include <cmath>
#include <cstring>

#include "p2b.pb.h"

namespace p2b::server {

namespace {

const BoxKey* find_key(const uint8_t* fp, const BoxKey* keys, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (sodium_memcmp(keys[i].fp, fp, kFingerprintBytes) == 0) return &keys[i];
  }
  return nullptr;
}

// The inverse of the device's padding: varint(len) || message || zeros, with
// no byte of the padding left unchecked.
bool decode_padded(const uint8_t* buf, std::size_t n, const pb_msgdesc_t* fields, void* msg) {
  pb_istream_t is = pb_istream_from_buffer(buf, n);
  if (!pb_decode_delimited(&is, fields, msg)) return false;
  const std::size_t used = n - is.bytes_left;
  for (std::size_t i = used; i < n; ++i) {
    if (buf[i] != 0) return false;
  }
  return true;
}

// nanopb leaves an absent or empty fixed-length bytes field as zeros, so the
// Envelope's `inner` (field 2) is checked on the wire: it must be there, and
// every occurrence exactly kInnerBytes long. `buf` is the padded plaintext.
bool inner_field_exact(const uint8_t* buf, std::size_t n) {
  pb_istream_t outer = pb_istream_from_buffer(buf, n);
  pb_istream_t msg;
  if (!pb_make_string_substream(&outer, &msg)) return false;
  bool seen = false;
  bool ok = true;
  pb_wire_type_t type;
  uint32_t tag = 0;
  bool eof = false;
  while (ok && pb_decode_tag(&msg, &type, &tag, &eof)) {
    if (tag == p2b_v1_Envelope_inner_tag) {
      uint32_t size = 0;
      ok = type == PB_WT_STRING && pb_decode_varint32(&msg, &size) && size == kInnerBytes &&
           pb_read(&msg, nullptr, size);
      seen = true;
    } else {
      ok = pb_skip_field(&msg, type);
    }
  }
  ok = ok && eof;
  pb_close_string_substream(&outer, &msg);
  return ok && seen;
}

// Opens `fp || sealed(plain)` of a fixed total length into `plain`.
OpenStatus open_layer(const uint8_t* in, std::size_t len, std::size_t plain_len, const BoxKey* keys,
                      std::size_t n_keys, uint8_t* plain, const BoxKey** used) {
  if (in == nullptr || len != kFingerprintBytes + plain_len + kSealOverheadBytes) {
    return OpenStatus::wrong_length;
  }
  const BoxKey* key = find_key(in, keys, n_keys);
  if (key == nullptr) return OpenStatus::unknown_key;
  if (sodium_init() < 0 || crypto_box_seal_open(plain, in + kFingerprintBytes,
                                                len - kFingerprintBytes, key->pk, key->sk) != 0) {
    return OpenStatus::decrypt_failed;
  }
  *used = key;
  return OpenStatus::ok;
}

}  // namespace

const char* open_status_str(OpenStatus s) {
  switch (s) {
    case OpenStatus::ok:
      return "ok";
    case OpenStatus::wrong_length:
      return "wrong length";
    case OpenStatus::unknown_key:
      return "unknown key fingerprint";
    case OpenStatus::decrypt_failed:
      return "decryption failed";
    case OpenStatus::malformed:
      return "malformed plaintext";
  }
  return "unknown";
}

bool make_box_key(const uint8_t* pk, const uint8_t* sk, BoxKey* out) {
  if (sodium_init() < 0) return false;
  std::memcpy(out->pk, pk, kPublicKeyBytes);
  std::memcpy(out->sk, sk, kPublicKeyBytes);
  return crypto_generichash(out->fp, kFingerprintBytes, pk, kPublicKeyBytes, nullptr, 0) == 0;
}

OpenStatus open_outer(const uint8_t* envelope, std::size_t len, const BoxKey* keys,
                      std::size_t n_keys, OuterOpened* out) {
  uint8_t plain[kOuterPlainBytes];
  const BoxKey* key = nullptr;
  const OpenStatus st = open_layer(envelope, len, sizeof plain, keys, n_keys, plain, &key);
  if (st != OpenStatus::ok) return st;
  p2b_v1_Envelope env = p2b_v1_Envelope_init_zero;
  const bool ok = decode_padded(plain, sizeof plain, p2b_v1_Envelope_fields, &env) &&
                  inner_field_exact(plain, sizeof plain) &&
                  sodium_memcmp(env.shuffler_key_fp, key->fp, kFingerprintBytes) == 0;
  sodium_memzero(plain, sizeof plain);
  if (!ok) return OpenStatus::malformed;
  out->crowd_id = env.crowd_id;
  std::memcpy(out->inner, env.inner, kInnerBytes);
  return OpenStatus::ok;
}

OpenStatus open_inner(const uint8_t* inner, std::size_t len, const BoxKey* keys, std::size_t n_keys,
                      InnerOpened* out) {
  uint8_t plain[kInnerPlainBytes];
  const BoxKey* key = nullptr;
  const OpenStatus st = open_layer(inner, len, sizeof plain, keys, n_keys, plain, &key);
  if (st != OpenStatus::ok) return st;
  p2b_v1_Report rep = p2b_v1_Report_init_zero;
  const bool ok = decode_padded(plain, sizeof plain, p2b_v1_Report_fields, &rep) &&
                  sodium_memcmp(rep.analyzer_key_fp, key->fp, kFingerprintBytes) == 0 &&
                  std::isfinite(rep.reward) && rep.reward >= 0.0F && rep.reward <= 1.0F;
  sodium_memzero(plain, sizeof plain);
  if (!ok) return OpenStatus::malformed;
  out->code = rep.code;
  out->action = rep.action;
  out->reward = rep.reward;
  out->model_version = rep.model_version;
  return OpenStatus::ok;
}

}  // namespace p2b::server
