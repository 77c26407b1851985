#include "fclub/wire/fclub_wire.hpp"

#include <pb_decode.h>
#include <pb_encode.h>
#include <sodium.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <utility>

#include "fclub/wire/fclub_wire_testing.hpp"
#include "p2b/envelope.hpp"
#include "p2b_fclub.pb.h"
#include "sodium_port.hpp"
#include "wire/le_bytes.hpp"

namespace p2b::fclub {

namespace {

namespace le = p2b::server::wire;

constexpr uint8_t kUploadMagic[kMagicBytes] = {'P', '2', 'B', 'U'};
constexpr uint8_t kDownloadMagic[kMagicBytes] = {'P', '2', 'B', 'D'};
static_assert(crypto_box_SEALBYTES == kSealBytes, "crypto_box_seal overhead");
static_assert(crypto_sign_BYTES == kSignatureBytes, "Ed25519 signature size");
static_assert(crypto_sign_PUBLICKEYBYTES == std::tuple_size<VerifyKey>::value, "verify key");
static_assert(kFpBytes == p2b::kFingerprintBytes, "fingerprint size");
static_assert(kMaxGramUpper == sizeof(p2b_fclub_v1_ClusterStats{}.gram_upper) / sizeof(double),
              "gram_upper max_count in proto/p2b_fclub.options");
static_assert(kMaxDim == sizeof(p2b_fclub_v1_ClusterStats{}.moment) / sizeof(double),
              "moment max_count in proto/p2b_fclub.options");

// ---- sizes -------------------------------------------------------------
// Each field: its key (one byte: every field number is below 16) and its
// value at the widest. A u32 varint takes at most 5 bytes, a u64 10, a
// double 8; a bytes field and a packed repeated double carry a length
// varint; the submessage too.

constexpr std::size_t varint_bytes(uint64_t v) {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}
constexpr std::size_t kU32Field = 1 + 5;
constexpr std::size_t kU64Field = 1 + 10;
constexpr std::size_t kDoubleField = 1 + 8;
constexpr std::size_t kFpField = 1 + 1 + kFpBytes;

constexpr std::size_t packed_doubles_field(std::size_t n) {
  return 1 + varint_bytes(8 * n) + 8 * n;
}
constexpr std::size_t stats_max(uint32_t d) {
  return kU32Field /* dim */ + kU64Field /* count */ + packed_doubles_field(gram_upper_count(d)) +
         packed_doubles_field(d);
}
constexpr std::size_t submessage_field(std::size_t n) {
  return 1 + varint_bytes(n) + n;
}
constexpr std::size_t upload_max(uint32_t d) {
  // format, deployment_fp, signer_fp, server_id, phase, seq, local_cluster,
  // member_count, stats, epsilon_spent, delta
  return kU32Field + 2 * kFpField + 5 * kU32Field + submessage_field(stats_max(d)) +
         2 * kDoubleField;
}
constexpr std::size_t download_max(uint32_t d) {
  // format, deployment_fp, signer_fp, server_id, phase, version,
  // local_cluster, global_cluster, kind, stats
  return kU32Field + 2 * kFpField + 2 * kU32Field + kU64Field + 3 * kU32Field +
         submessage_field(stats_max(d));
}
constexpr std::size_t frame_max(std::size_t message_max) {
  return kMagicBytes + varint_bytes(message_max) + message_max + kSignatureBytes;
}
// nanopb's own bound counts repeated doubles unpacked (a key per value), so
// it is above ours; ours is what the encoder writes (tests check each dim).
static_assert(upload_max(kMaxDim) <= p2b_fclub_v1_Upload_size, "upload bound");
static_assert(download_max(kMaxDim) <= p2b_fclub_v1_Download_size, "download bound");
static_assert(frame_max(upload_max(kMaxDim)) + kLengthPrefixBytes < (uint64_t{1} << 32),
              "u32 length prefix");

bool dim_ok(uint32_t d) {
  return d >= 1 && d <= kMaxDim;
}

// ---- the two messages, for the shared code below ---------------------

struct UploadKind {
  using Msg = Upload;
  using Pb = p2b_fclub_v1_Upload;
  static constexpr const uint8_t* magic = kUploadMagic;
  static constexpr const char* name = "upload";
  static const pb_msgdesc_t* desc() { return &p2b_fclub_v1_Upload_msg; }
  static std::size_t padded_size(uint32_t d) {
    return dim_ok(d) ? kLengthPrefixBytes + frame_max(upload_max(d)) : 0;
  }
};

struct DownloadKind {
  using Msg = Download;
  using Pb = p2b_fclub_v1_Download;
  static constexpr const uint8_t* magic = kDownloadMagic;
  static constexpr const char* name = "download";
  static const pb_msgdesc_t* desc() { return &p2b_fclub_v1_Download_msg; }
  static std::size_t padded_size(uint32_t d) {
    return dim_ok(d) ? kLengthPrefixBytes + frame_max(download_max(d)) : 0;
  }
};

OpenStatus fail(OpenStatus s, const std::string& detail, std::string* err) {
  if (err != nullptr) *err = std::string(open_status_name(s)) + ": " + detail;
  return s;
}

// ---- struct <-> nanopb -------------------------------------------------

bool stats_to_pb(const ClusterStats& s, p2b_fclub_v1_ClusterStats* pb, std::string* err) {
  if (s.gram_upper.size() > kMaxGramUpper || s.moment.size() > kMaxDim) {
    *err = "more statistics than the format holds (2080 gram, 64 moment values)";
    return false;
  }
  pb->dim = s.dim;
  pb->count = s.count;
  pb->gram_upper_count = static_cast<pb_size_t>(s.gram_upper.size());
  std::copy(s.gram_upper.begin(), s.gram_upper.end(), pb->gram_upper);
  pb->moment_count = static_cast<pb_size_t>(s.moment.size());
  std::copy(s.moment.begin(), s.moment.end(), pb->moment);
  return true;
}

void stats_from_pb(const p2b_fclub_v1_ClusterStats& pb, ClusterStats* s) {
  s->dim = pb.dim;
  s->count = pb.count;
  s->gram_upper.assign(pb.gram_upper, pb.gram_upper + pb.gram_upper_count);
  s->moment.assign(pb.moment, pb.moment + pb.moment_count);
}

bool to_pb(const Upload& u, p2b_fclub_v1_Upload* pb, std::string* err) {
  pb->format = u.format;
  std::memcpy(pb->deployment_fp, u.deployment_fp, kFpBytes);
  std::memcpy(pb->signer_fp, u.signer_fp, kFpBytes);
  pb->server_id = u.server_id;
  pb->phase = u.phase;
  pb->seq = u.seq;
  pb->local_cluster = u.local_cluster;
  pb->member_count = u.member_count;
  pb->has_stats = true;
  pb->epsilon_spent = u.epsilon_spent;
  pb->delta = u.delta;
  return stats_to_pb(u.stats, &pb->stats, err);
}

bool to_pb(const Download& d, p2b_fclub_v1_Download* pb, std::string* err) {
  pb->format = d.format;
  std::memcpy(pb->deployment_fp, d.deployment_fp, kFpBytes);
  std::memcpy(pb->signer_fp, d.signer_fp, kFpBytes);
  pb->server_id = d.server_id;
  pb->phase = d.phase;
  pb->version = d.version;
  pb->local_cluster = d.local_cluster;
  pb->global_cluster = d.global_cluster;
  pb->kind = d.kind;
  pb->has_stats = true;
  return stats_to_pb(d.stats, &pb->stats, err);
}

void from_pb(const p2b_fclub_v1_Upload& pb, Upload* u) {
  u->format = pb.format;
  std::memcpy(u->deployment_fp, pb.deployment_fp, kFpBytes);
  std::memcpy(u->signer_fp, pb.signer_fp, kFpBytes);
  u->server_id = pb.server_id;
  u->phase = pb.phase;
  u->seq = pb.seq;
  u->local_cluster = pb.local_cluster;
  u->member_count = pb.member_count;
  u->epsilon_spent = pb.epsilon_spent;
  u->delta = pb.delta;
  stats_from_pb(pb.stats, &u->stats);
}

void from_pb(const p2b_fclub_v1_Download& pb, Download* d) {
  d->format = pb.format;
  std::memcpy(d->deployment_fp, pb.deployment_fp, kFpBytes);
  std::memcpy(d->signer_fp, pb.signer_fp, kFpBytes);
  d->server_id = pb.server_id;
  d->phase = pb.phase;
  d->version = pb.version;
  d->local_cluster = pb.local_cluster;
  d->global_cluster = pb.global_cluster;
  d->kind = pb.kind;
  stats_from_pb(pb.stats, &d->stats);
}

// ---- the checks of content (the sealer's and the opener's) -------------

OpenStatus check_stats(const ClusterStats& s, std::string* err) {
  if (!dim_ok(s.dim)) {
    return fail(OpenStatus::bad_dim, "dim " + std::to_string(s.dim) + " is not in 1..64", err);
  }
  if (s.gram_upper.size() != gram_upper_count(s.dim) || s.moment.size() != s.dim) {
    return fail(OpenStatus::count_mismatch,
                std::to_string(s.gram_upper.size()) + " gram and " +
                    std::to_string(s.moment.size()) + " moment values for dim " +
                    std::to_string(s.dim),
                err);
  }
  for (const double v : s.gram_upper) {
    if (!std::isfinite(v)) return fail(OpenStatus::non_finite, "in gram_upper", err);
  }
  for (const double v : s.moment) {
    if (!std::isfinite(v)) return fail(OpenStatus::non_finite, "in moment", err);
  }
  if (s.count > kMaxStatsCount) {
    return fail(OpenStatus::count_overflow, "count " + std::to_string(s.count) + " > 2^53", err);
  }
  return OpenStatus::ok;
}

OpenStatus check_content(const Upload& u, std::string* err) {
  if (u.format != kWireFormat) {
    return fail(OpenStatus::wrong_format, "format " + std::to_string(u.format), err);
  }
  const OpenStatus st = check_stats(u.stats, err);
  if (st != OpenStatus::ok) return st;
  if (!std::isfinite(u.epsilon_spent) || !std::isfinite(u.delta)) {
    return fail(OpenStatus::non_finite, "in epsilon_spent or delta", err);
  }
  if (u.epsilon_spent < 0 || u.delta < 0 || u.delta > 1) {
    return fail(OpenStatus::out_of_range, "epsilon_spent < 0 or delta not in [0, 1]", err);
  }
  return OpenStatus::ok;
}

OpenStatus check_content(const Download& d, std::string* err) {
  if (d.format != kWireFormat) {
    return fail(OpenStatus::wrong_format, "format " + std::to_string(d.format), err);
  }
  const OpenStatus st = check_stats(d.stats, err);
  if (st != OpenStatus::ok) return st;
  if (d.kind != kDownloadDelta && d.kind != kDownloadReplace) {
    return fail(OpenStatus::out_of_range, "kind " + std::to_string(d.kind), err);
  }
  return OpenStatus::ok;
}

// ---- framing -------------------------------------------------------------

// u32le len | magic | varint(len) | message | signature | zeros, padded to
// `padded_size` bytes. The signer_fp inside is the one `msg` holds.
template <class K>
bool pad_frame(const typename K::Msg& msg, const uint8_t* sign_sk, std::size_t padded_size,
               std::vector<uint8_t>* padded, std::string* err) {
  if (sign_sk == nullptr || padded_size == 0) {
    *err = "no signing key, or no wire size for this dim";
    return false;
  }
  auto pb = std::make_unique<typename K::Pb>();
  if (!to_pb(msg, pb.get(), err)) return false;
  std::size_t message_len = 0;
  if (!pb_get_encoded_size(&message_len, K::desc(), pb.get())) {
    *err = "nanopb cannot size the message";
    return false;
  }
  const std::size_t frame_len =
      kMagicBytes + varint_bytes(message_len) + message_len + kSignatureBytes;
  if (kLengthPrefixBytes + frame_len > padded_size) {
    *err = "the frame does not fit the wire size";
    return false;
  }
  std::vector<uint8_t> out(padded_size, 0);
  uint8_t* frame = out.data() + kLengthPrefixBytes;
  std::vector<uint8_t> prefix;
  le::put_u32(&prefix, static_cast<uint32_t>(frame_len));
  std::memcpy(out.data(), prefix.data(), kLengthPrefixBytes);
  std::memcpy(frame, K::magic, kMagicBytes);
  const std::size_t signed_len = frame_len - kSignatureBytes;
  pb_ostream_t os = pb_ostream_from_buffer(frame + kMagicBytes, signed_len - kMagicBytes);
  if (!pb_encode_ex(&os, K::desc(), pb.get(), PB_ENCODE_DELIMITED) ||
      os.bytes_written != signed_len - kMagicBytes) {
    *err = std::string("nanopb encode: ") + PB_GET_ERROR(&os);
    return false;
  }
  if (sodium_init() < 0 ||
      crypto_sign_detached(frame + signed_len, nullptr, frame, signed_len, sign_sk) != 0) {
    *err = "signing failed";
    return false;
  }
  *padded = std::move(out);
  return true;
}

bool seal_bytes(const std::vector<uint8_t>& plain, const uint8_t* pk, std::vector<uint8_t>* out) {
  if (pk == nullptr || sodium_init() < 0) return false;
  std::vector<uint8_t> sealed(plain.size() + kSealBytes);
  if (crypto_box_seal(sealed.data(), plain.data(), plain.size(), pk) != 0) return false;
  *out = std::move(sealed);
  return true;
}

template <class K>
bool seal_message(const typename K::Msg& msg, const uint8_t* sign_sk,
                  const uint8_t* recipient_box_pk, std::vector<uint8_t>* out, std::string* err) {
  std::string why;
  if (out == nullptr || sign_sk == nullptr || recipient_box_pk == nullptr) {
    if (err != nullptr) *err = "null argument";
    return false;
  }
  if (check_content(msg, &why) != OpenStatus::ok) {
    if (err != nullptr) *err = std::string("refusing to seal an invalid ") + K::name + ": " + why;
    return false;
  }
  typename K::Msg named = msg;
  if (!signer_fingerprint(sign_sk + crypto_sign_SECRETKEYBYTES - crypto_sign_PUBLICKEYBYTES,
                          named.signer_fp)) {
    if (err != nullptr) *err = "fingerprint failed";
    return false;
  }
  std::vector<uint8_t> padded;
  if (!pad_frame<K>(named, sign_sk, K::padded_size(msg.stats.dim), &padded, &why)) {
    if (err != nullptr) *err = why;
    return false;
  }
  const bool ok = seal_bytes(padded, recipient_box_pk, out);
  if (!ok && err != nullptr) *err = "crypto_box_seal failed";
  return ok;
}

// The dim whose padded size is `len`: the expected one, or when none is
// expected, the only one (sizes grow with dim). 0: no dim has that size.
template <class K>
uint32_t dim_of_padded(std::size_t len, uint32_t expected) {
  if (expected != 0) return K::padded_size(expected) == len ? expected : 0;
  for (uint32_t d = 1; d <= kMaxDim; ++d) {
    if (K::padded_size(d) == len) return d;
  }
  return 0;
}

template <class K>
OpenStatus check_plaintext(const uint8_t* padded, std::size_t len, const SignerLookup& signers,
                           const OpenExpect& expect, typename K::Msg* out, std::string* err) {
  if (padded == nullptr || out == nullptr) return fail(OpenStatus::wrong_length, "null", err);
  if (dim_of_padded<K>(len, expect.dim) == 0) {
    return fail(OpenStatus::wrong_length, std::to_string(len) + " plaintext bytes", err);
  }
  // The padding: a length that leaves room for the smallest frame, then zeros.
  const std::size_t frame_len = le::get_u32(padded);
  constexpr std::size_t kMinFrame = kMagicBytes + 1 + kSignatureBytes;
  if (frame_len < kMinFrame || frame_len > len - kLengthPrefixBytes) {
    return fail(OpenStatus::bad_padding, "frame length " + std::to_string(frame_len), err);
  }
  for (std::size_t i = kLengthPrefixBytes + frame_len; i < len; ++i) {
    if (padded[i] != 0) return fail(OpenStatus::bad_padding, "a non-zero padding byte", err);
  }
  const uint8_t* frame = padded + kLengthPrefixBytes;
  if (std::memcmp(frame, K::magic, kMagicBytes) != 0) {
    return fail(OpenStatus::bad_magic, std::string("not a ") + K::name, err);
  }
  // varint(len) | message, exactly up to the signature.
  const uint8_t* body = frame + kMagicBytes;
  const std::size_t body_len = frame_len - kMagicBytes - kSignatureBytes;
  auto pb = std::make_unique<typename K::Pb>();
  pb_istream_t is = pb_istream_from_buffer(body, body_len);
  if (!pb_decode_ex(&is, K::desc(), pb.get(), PB_DECODE_DELIMITED)) {
    return fail(OpenStatus::decode_error, PB_GET_ERROR(&is), err);
  }
  if (is.bytes_left != 0) {
    return fail(OpenStatus::decode_error, "bytes between the message and the signature", err);
  }
  if (!pb->has_stats) return fail(OpenStatus::decode_error, "no stats", err);
  // One encoding only: what nanopb writes for what was read, byte for byte
  // (no unpacked repeats, repeated or unknown fields, over-long varints or
  // absent fingerprints).
  std::vector<uint8_t> again(body_len);
  pb_ostream_t os = pb_ostream_from_buffer(again.data(), again.size());
  if (!pb_encode_ex(&os, K::desc(), pb.get(), PB_ENCODE_DELIMITED) ||
      os.bytes_written != body_len || std::memcmp(again.data(), body, body_len) != 0) {
    return fail(OpenStatus::decode_error, "not the canonical encoding", err);
  }
  uint8_t verify_pk[crypto_sign_PUBLICKEYBYTES] = {};
  if (!signers || !signers(pb->signer_fp, verify_pk)) {
    return fail(OpenStatus::unknown_signer, "signer_fp names no pinned key", err);
  }
  if (sodium_init() < 0 ||
      crypto_sign_verify_detached(frame + frame_len - kSignatureBytes, frame,
                                  frame_len - kSignatureBytes, verify_pk) != 0) {
    return fail(OpenStatus::bad_signature, "does not verify", err);
  }
  typename K::Msg msg;
  from_pb(*pb, &msg);
  const OpenStatus st = check_content(msg, err);
  if (st != OpenStatus::ok) return st;
  if (expect.dim != 0 && msg.stats.dim != expect.dim) {
    return fail(OpenStatus::bad_dim,
                "dim " + std::to_string(msg.stats.dim) + ", expected " + std::to_string(expect.dim),
                err);
  }
  if (K::padded_size(msg.stats.dim) != len) {
    return fail(OpenStatus::bad_dim,
                "dim " + std::to_string(msg.stats.dim) + " in a message of another dim's length",
                err);
  }
  if (sodium_memcmp(msg.deployment_fp, expect.deployment_fp, kFpBytes) != 0) {
    return fail(OpenStatus::deployment_mismatch, "another deployment", err);
  }
  *out = std::move(msg);
  return OpenStatus::ok;
}

template <class K>
OpenStatus open_message(const uint8_t* wire, std::size_t len, const uint8_t* box_pk,
                        const uint8_t* box_sk, const SignerLookup& signers,
                        const OpenExpect& expect, typename K::Msg* out, std::string* err) {
  if (wire == nullptr || len < kSealBytes || dim_of_padded<K>(len - kSealBytes, expect.dim) == 0) {
    return fail(OpenStatus::wrong_length, std::to_string(len) + " bytes", err);
  }
  if (box_pk == nullptr || box_sk == nullptr || out == nullptr) {
    return fail(OpenStatus::unseal_failed, "no key", err);
  }
  std::vector<uint8_t> plain(len - kSealBytes);
  if (sodium_init() < 0 || crypto_box_seal_open(plain.data(), wire, len, box_pk, box_sk) != 0) {
    return fail(OpenStatus::unseal_failed, "crypto_box_seal_open", err);
  }
  const OpenStatus st = check_plaintext<K>(plain.data(), plain.size(), signers, expect, out, err);
  sodium_memzero(plain.data(), plain.size());
  return st;
}

}  // namespace

std::size_t upload_message_max_bytes(uint32_t dim) {
  return dim_ok(dim) ? upload_max(dim) : 0;
}
std::size_t download_message_max_bytes(uint32_t dim) {
  return dim_ok(dim) ? download_max(dim) : 0;
}
std::size_t upload_frame_max_bytes(uint32_t dim) {
  return dim_ok(dim) ? frame_max(upload_max(dim)) : 0;
}
std::size_t download_frame_max_bytes(uint32_t dim) {
  return dim_ok(dim) ? frame_max(download_max(dim)) : 0;
}
std::size_t upload_wire_size(uint32_t dim) {
  return dim_ok(dim) ? UploadKind::padded_size(dim) + kSealBytes : 0;
}
std::size_t download_wire_size(uint32_t dim) {
  return dim_ok(dim) ? DownloadKind::padded_size(dim) + kSealBytes : 0;
}

bool deployment_fingerprint(const uint8_t* global_box_pk, uint8_t* fp) {
  return sodium_init() >= 0 &&
         p2b::key_fingerprint(p2b::port::sodium_crypto(), global_box_pk, fp) == p2b::Status::ok;
}

bool signer_fingerprint(const uint8_t* verify_pk, uint8_t* fp) {
  return sodium_init() >= 0 &&
         p2b::key_fingerprint(p2b::port::sodium_crypto(), verify_pk, fp) == p2b::Status::ok;
}

const char* open_status_name(OpenStatus s) {
  switch (s) {
    case OpenStatus::ok:
      return "ok";
    case OpenStatus::wrong_length:
      return "wrong_length";
    case OpenStatus::unseal_failed:
      return "unseal_failed";
    case OpenStatus::bad_padding:
      return "bad_padding";
    case OpenStatus::bad_magic:
      return "bad_magic";
    case OpenStatus::decode_error:
      return "decode_error";
    case OpenStatus::unknown_signer:
      return "unknown_signer";
    case OpenStatus::bad_signature:
      return "bad_signature";
    case OpenStatus::wrong_format:
      return "wrong_format";
    case OpenStatus::bad_dim:
      return "bad_dim";
    case OpenStatus::count_mismatch:
      return "count_mismatch";
    case OpenStatus::non_finite:
      return "non_finite";
    case OpenStatus::count_overflow:
      return "count_overflow";
    case OpenStatus::out_of_range:
      return "out_of_range";
    case OpenStatus::deployment_mismatch:
      return "deployment_mismatch";
  }
  return "unknown";
}

SignerLookup pinned_signers(const std::vector<VerifyKey>& verify_keys) {
  struct Pinned {
    uint8_t fp[kFpBytes];
    VerifyKey pk;
  };
  std::vector<Pinned> pinned;
  for (const VerifyKey& k : verify_keys) {
    Pinned p{};
    p.pk = k;
    if (signer_fingerprint(k.data(), p.fp)) pinned.push_back(p);
  }
  return [pinned = std::move(pinned)](const uint8_t* signer_fp, uint8_t* verify_pk) {
    for (const Pinned& p : pinned) {
      if (std::memcmp(p.fp, signer_fp, kFpBytes) == 0) {
        std::memcpy(verify_pk, p.pk.data(), p.pk.size());
        return true;
      }
    }
    return false;
  };
}

bool seal_upload(const Upload& u, const uint8_t* sign_sk, const uint8_t* recipient_box_pk,
                 std::vector<uint8_t>* out, std::string* err) {
  return seal_message<UploadKind>(u, sign_sk, recipient_box_pk, out, err);
}

bool seal_download(const Download& d, const uint8_t* sign_sk, const uint8_t* recipient_box_pk,
                   std::vector<uint8_t>* out, std::string* err) {
  return seal_message<DownloadKind>(d, sign_sk, recipient_box_pk, out, err);
}

OpenStatus open_upload(const uint8_t* wire, std::size_t len, const uint8_t* recipient_box_pk,
                       const uint8_t* recipient_box_sk, const SignerLookup& signers,
                       const OpenExpect& expect, Upload* out, std::string* err) {
  return open_message<UploadKind>(wire, len, recipient_box_pk, recipient_box_sk, signers, expect,
                                  out, err);
}

OpenStatus open_download(const uint8_t* wire, std::size_t len, const uint8_t* recipient_box_pk,
                         const uint8_t* recipient_box_sk, const SignerLookup& signers,
                         const OpenExpect& expect, Download* out, std::string* err) {
  return open_message<DownloadKind>(wire, len, recipient_box_pk, recipient_box_sk, signers, expect,
                                    out, err);
}

OpenStatus check_upload_plaintext(const uint8_t* padded, std::size_t len,
                                  const SignerLookup& signers, const OpenExpect& expect,
                                  Upload* out, std::string* err) {
  return check_plaintext<UploadKind>(padded, len, signers, expect, out, err);
}

OpenStatus check_download_plaintext(const uint8_t* padded, std::size_t len,
                                    const SignerLookup& signers, const OpenExpect& expect,
                                    Download* out, std::string* err) {
  return check_plaintext<DownloadKind>(padded, len, signers, expect, out, err);
}

namespace testing {

namespace {

template <class K>
bool pad_unchecked(const typename K::Msg& msg, const uint8_t* sign_sk, uint32_t wire_dim,
                   bool keep_signer_fp, std::vector<uint8_t>* padded, std::string* err) {
  if (sign_sk == nullptr) return false;
  typename K::Msg named = msg;
  if (!keep_signer_fp &&
      !signer_fingerprint(sign_sk + crypto_sign_SECRETKEYBYTES - crypto_sign_PUBLICKEYBYTES,
                          named.signer_fp)) {
    return false;
  }
  return pad_frame<K>(named, sign_sk, K::padded_size(wire_dim), padded, err);
}

}  // namespace

bool pad_upload_unchecked(const Upload& u, const uint8_t* sign_sk, uint32_t wire_dim,
                          bool keep_signer_fp, std::vector<uint8_t>* padded, std::string* err) {
  return pad_unchecked<UploadKind>(u, sign_sk, wire_dim, keep_signer_fp, padded, err);
}

bool pad_download_unchecked(const Download& d, const uint8_t* sign_sk, uint32_t wire_dim,
                            bool keep_signer_fp, std::vector<uint8_t>* padded, std::string* err) {
  return pad_unchecked<DownloadKind>(d, sign_sk, wire_dim, keep_signer_fp, padded, err);
}

bool seal_padded(const std::vector<uint8_t>& padded, const uint8_t* recipient_box_pk,
                 std::vector<uint8_t>* out) {
  return seal_bytes(padded, recipient_box_pk, out);
}

}  // namespace testing

}  // namespace p2b::fclub
