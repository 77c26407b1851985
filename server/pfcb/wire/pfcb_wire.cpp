#include "pfcb/wire/pfcb_wire.hpp"

#include <pb_decode.h>
#include <pb_encode.h>
#include <sodium.h>

#include <cstring>
#include <memory>
#include <utility>

#include "p2b_pfcb.pb.h"

namespace p2b::pfcb {

namespace {

constexpr uint8_t kMagic[kMagicBytes] = {'P', '2', 'B', 'X'};
// Domain separation for the consortium fingerprint (a keyed hash).
constexpr char kConsortiumLabel[] = "p2b pfcb consortium fingerprint v1";
// magic | u32le format | consortium_fp | sender_fp | u32le release
constexpr std::size_t kAdBytes = kMagicBytes + 4 + kFpBytes + kFpBytes + 4;

static_assert(crypto_sign_BYTES == kSignatureBytes, "Ed25519 signature size");
static_assert(crypto_sign_PUBLICKEYBYTES == kVerifyKeyBytes, "Ed25519 verify key size");
static_assert(crypto_sign_SECRETKEYBYTES == kSignKeyBytes, "Ed25519 secret key size");
static_assert(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES == kNonceBytes, "nonce size");
static_assert(crypto_aead_xchacha20poly1305_ietf_ABYTES == kTagBytes, "tag size");
static_assert(crypto_aead_xchacha20poly1305_ietf_KEYBYTES == kConsortiumKeyBytes, "key size");
static_assert(sizeof(p2b_pfcb_v1_Posting{}.consortium_fp) == kFpBytes, "consortium_fp size");
static_assert(sizeof(p2b_pfcb_v1_Posting{}.sender_fp) == kFpBytes, "sender_fp size");
static_assert(sizeof(p2b_pfcb_v1_Posting{}.nonce) == kNonceBytes, "nonce size");
static_assert(sizeof(p2b_pfcb_v1_Share{}.w_noisy) / sizeof(int32_t) == kMaxProducers,
              "w_noisy max_count in proto/p2b_pfcb.options");

// ---- sizes -------------------------------------------------------------
// Every field of both messages is required and fixed-width, and every field
// number is below 16 (a one-byte key), so each length is a sum of constants
// and of the two length varints.

constexpr std::size_t varint_bytes(uint64_t v) {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}
constexpr std::size_t kFixed32Field = 1 + 4;
constexpr std::size_t kFixed64Field = 1 + 8;
constexpr std::size_t length_delimited(std::size_t n) {
  return 1 + varint_bytes(n) + n;
}
constexpr std::size_t share_size(uint32_t m) {
  // format, producers, release, round, release_epsilon, w_noisy, y_noisy
  return 3 * kFixed32Field + 2 * kFixed64Field + 2 * length_delimited(4 * std::size_t{m});
}
constexpr std::size_t message_size(uint32_t m) {
  // format, consortium_fp, sender_fp, release, nonce, sealed_share
  return kFixed32Field + 2 * length_delimited(kFpBytes) + kFixed32Field +
         length_delimited(kNonceBytes) + length_delimited(share_size(m) + kTagBytes);
}
constexpr std::size_t wire_size(uint32_t m) {
  return kMagicBytes + varint_bytes(message_size(m)) + message_size(m) + kSignatureBytes;
}
static_assert(share_size(kMaxProducers) + kTagBytes <=
                  sizeof(p2b_pfcb_v1_Posting_sealed_share_t{}.bytes),
              "sealed_share max_size in proto/p2b_pfcb.options");
static_assert(message_size(kMaxProducers) <= p2b_pfcb_v1_Posting_size, "posting bound");

bool producers_ok(uint32_t m) {
  return m >= 1 && m <= kMaxProducers;
}

PostingStatus fail(PostingStatus s, const std::string& detail, std::string* err) {
  if (err != nullptr) *err = std::string(posting_status_name(s)) + ": " + detail;
  return s;
}

void put_u32le(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// What the AEAD binds: every clear field a relay or a network could swap.
void associated_data(uint32_t format, const uint8_t* consortium_fp, const uint8_t* sender_fp,
                     uint32_t release, uint8_t* ad) {
  std::memcpy(ad, kMagic, kMagicBytes);
  put_u32le(ad + kMagicBytes, format);
  std::memcpy(ad + kMagicBytes + 4, consortium_fp, kFpBytes);
  std::memcpy(ad + kMagicBytes + 4 + kFpBytes, sender_fp, kFpBytes);
  put_u32le(ad + kMagicBytes + 4 + 2 * kFpBytes, release);
}

// The checks the relay and the agents share. On ok, `pb` holds the decoded
// posting and `header` its clear fields.
PostingStatus check_frame(const uint8_t* bytes, std::size_t len, uint32_t m,
                          const uint8_t* consortium_fp, const Members& members,
                          p2b_pfcb_v1_Posting* pb, PostingHeader* header, std::string* err) {
  if (bytes == nullptr || !producers_ok(m) || len != wire_size(m)) {
    return fail(PostingStatus::wrong_length,
                std::to_string(len) + " bytes, expected " +
                    std::to_string(producers_ok(m) ? wire_size(m) : 0),
                err);
  }
  if (std::memcmp(bytes, kMagic, kMagicBytes) != 0) {
    return fail(PostingStatus::bad_magic, "not a P2BX posting", err);
  }
  const std::size_t signed_len = len - kSignatureBytes;
  const uint8_t* body = bytes + kMagicBytes;
  const std::size_t body_len = signed_len - kMagicBytes;
  *pb = p2b_pfcb_v1_Posting_init_zero;
  pb_istream_t is = pb_istream_from_buffer(body, body_len);
  if (!pb_decode_ex(&is, &p2b_pfcb_v1_Posting_msg, pb, PB_DECODE_DELIMITED)) {
    return fail(PostingStatus::decode_error, PB_GET_ERROR(&is), err);
  }
  if (is.bytes_left != 0) {
    return fail(PostingStatus::decode_error, "bytes between the posting and the signature", err);
  }
  // One encoding only: the bytes nanopb writes for what was read (no
  // reordered, repeated or unknown fields, no over-long varints), so the
  // relay stores and forwards exactly what was signed and nothing else.
  uint8_t again[wire_size(kMaxProducers)];
  pb_ostream_t os = pb_ostream_from_buffer(again, body_len);
  if (!pb_encode_ex(&os, &p2b_pfcb_v1_Posting_msg, pb, PB_ENCODE_DELIMITED) ||
      os.bytes_written != body_len || std::memcmp(again, body, body_len) != 0) {
    return fail(PostingStatus::decode_error, "not the canonical encoding", err);
  }
  if (pb->sealed_share.size != share_size(m) + kTagBytes) {
    return fail(PostingStatus::decode_error, "sealed_share of another m's length", err);
  }
  if (pb->format != kPostingFormat) {
    return fail(PostingStatus::wrong_format, "format " + std::to_string(pb->format), err);
  }
  if (consortium_fp == nullptr || sodium_memcmp(pb->consortium_fp, consortium_fp, kFpBytes) != 0) {
    return fail(PostingStatus::consortium_mismatch, "another consortium", err);
  }
  VerifyKey key{};
  uint32_t index = 0;
  if (!members.find(pb->sender_fp, &key, &index)) {
    return fail(PostingStatus::unknown_sender, "sender_fp names no member", err);
  }
  if (sodium_init() < 0 ||
      crypto_sign_verify_detached(bytes + signed_len, bytes, signed_len, key.data()) != 0) {
    return fail(PostingStatus::bad_signature, "does not verify", err);
  }
  if (pb->release == 0) return fail(PostingStatus::bad_release, "release 0", err);
  std::memcpy(header->consortium_fp, pb->consortium_fp, kFpBytes);
  std::memcpy(header->sender_fp, pb->sender_fp, kFpBytes);
  header->release = pb->release;
  header->sender_index = index;
  return PostingStatus::ok;
}

}  // namespace

std::size_t share_body_size(uint32_t m) {
  return producers_ok(m) ? share_size(m) : 0;
}
std::size_t posting_message_size(uint32_t m) {
  return producers_ok(m) ? message_size(m) : 0;
}
std::size_t posting_wire_size(uint32_t m) {
  return producers_ok(m) ? wire_size(m) : 0;
}

bool consortium_fingerprint(const uint8_t* consortium_key, uint8_t* fp) {
  return consortium_key != nullptr && fp != nullptr && sodium_init() >= 0 &&
         crypto_generichash(fp, kFpBytes, reinterpret_cast<const uint8_t*>(kConsortiumLabel),
                            sizeof kConsortiumLabel - 1, consortium_key, kConsortiumKeyBytes) == 0;
}

bool sender_fingerprint(const uint8_t* verify_pk, uint8_t* fp) {
  return verify_pk != nullptr && fp != nullptr && sodium_init() >= 0 &&
         crypto_generichash(fp, kFpBytes, verify_pk, kVerifyKeyBytes, nullptr, 0) == 0;
}

const char* posting_status_name(PostingStatus s) {
  switch (s) {
    case PostingStatus::ok:
      return "ok";
    case PostingStatus::wrong_length:
      return "wrong_length";
    case PostingStatus::bad_magic:
      return "bad_magic";
    case PostingStatus::decode_error:
      return "decode_error";
    case PostingStatus::wrong_format:
      return "wrong_format";
    case PostingStatus::consortium_mismatch:
      return "consortium_mismatch";
    case PostingStatus::unknown_sender:
      return "unknown_sender";
    case PostingStatus::bad_signature:
      return "bad_signature";
    case PostingStatus::bad_release:
      return "bad_release";
    case PostingStatus::aead_failed:
      return "aead_failed";
    case PostingStatus::bad_share:
      return "bad_share";
    case PostingStatus::share_mismatch:
      return "share_mismatch";
  }
  return "unknown";
}

Members::Members(const std::vector<VerifyKey>& keys) {
  members_.reserve(keys.size());
  for (const VerifyKey& k : keys) {
    Member m;
    m.key = k;
    if (!sender_fingerprint(k.data(), m.fp.data())) m.fp.fill(0);
    members_.push_back(m);
  }
}

bool Members::find(const uint8_t* fp, VerifyKey* key, uint32_t* index) const {
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (std::memcmp(members_[i].fp.data(), fp, kFpBytes) == 0) {
      *key = members_[i].key;
      *index = static_cast<uint32_t>(i);
      return true;
    }
  }
  return false;
}

PostingStatus verify_posting_signature(const uint8_t* bytes, std::size_t len, uint32_t m,
                                       const uint8_t* consortium_fp, const Members& members,
                                       PostingHeader* out, std::string* err) {
  auto pb = std::make_unique<p2b_pfcb_v1_Posting>();
  PostingHeader header;
  const PostingStatus st =
      check_frame(bytes, len, m, consortium_fp, members, pb.get(), &header, err);
  if (st == PostingStatus::ok && out != nullptr) *out = header;
  return st;
}

bool seal_posting_body(const uint8_t* body, std::size_t body_len, uint32_t m, uint32_t release,
                       const uint8_t* sign_sk, const uint8_t* consortium_key,
                       std::vector<uint8_t>* out, std::string* err) {
  auto fail_seal = [err](const char* why) {
    if (err != nullptr) *err = why;
    return false;
  };
  if (body == nullptr || sign_sk == nullptr || consortium_key == nullptr || out == nullptr) {
    return fail_seal("null argument");
  }
  if (!producers_ok(m) || body_len != share_size(m)) {
    return fail_seal("the body is not share_body_size(m) bytes for an m in 1..64");
  }
  if (release == 0) return fail_seal("release 0 (releases are 1-based)");
  if (sodium_init() < 0) return fail_seal("libsodium did not initialise");
  auto pb = std::make_unique<p2b_pfcb_v1_Posting>();
  *pb = p2b_pfcb_v1_Posting_init_zero;
  pb->format = kPostingFormat;
  if (!consortium_fingerprint(consortium_key, pb->consortium_fp) ||
      !sender_fingerprint(sign_sk + kSignKeyBytes - kVerifyKeyBytes, pb->sender_fp)) {
    return fail_seal("fingerprint failed");
  }
  pb->release = release;
  randombytes_buf(pb->nonce, kNonceBytes);
  uint8_t ad[kAdBytes];
  associated_data(pb->format, pb->consortium_fp, pb->sender_fp, release, ad);
  unsigned long long sealed_len = 0;
  if (crypto_aead_xchacha20poly1305_ietf_encrypt(pb->sealed_share.bytes, &sealed_len, body,
                                                 body_len, ad, sizeof ad, nullptr, pb->nonce,
                                                 consortium_key) != 0 ||
      sealed_len != body_len + kTagBytes) {
    return fail_seal("AEAD encryption failed");
  }
  pb->sealed_share.size = static_cast<pb_size_t>(sealed_len);
  std::vector<uint8_t> frame(wire_size(m));
  std::memcpy(frame.data(), kMagic, kMagicBytes);
  const std::size_t signed_len = frame.size() - kSignatureBytes;
  pb_ostream_t os = pb_ostream_from_buffer(frame.data() + kMagicBytes, signed_len - kMagicBytes);
  if (!pb_encode_ex(&os, &p2b_pfcb_v1_Posting_msg, pb.get(), PB_ENCODE_DELIMITED) ||
      os.bytes_written != signed_len - kMagicBytes) {
    return fail_seal("the posting did not encode to its fixed length");
  }
  if (crypto_sign_detached(frame.data() + signed_len, nullptr, frame.data(), signed_len, sign_sk) !=
      0) {
    return fail_seal("signing failed");
  }
  *out = std::move(frame);
  return true;
}

PostingStatus open_posting_body(const uint8_t* bytes, std::size_t len, uint32_t m,
                                const uint8_t* consortium_key, const Members& members,
                                std::vector<uint8_t>* body, PostingHeader* header,
                                std::string* err) {
  if (consortium_key == nullptr || body == nullptr || header == nullptr) {
    return fail(PostingStatus::aead_failed, "no consortium key or output", err);
  }
  uint8_t expected_fp[kFpBytes];
  if (!consortium_fingerprint(consortium_key, expected_fp)) {
    return fail(PostingStatus::aead_failed, "fingerprint failed", err);
  }
  auto pb = std::make_unique<p2b_pfcb_v1_Posting>();
  PostingHeader h;
  const PostingStatus st = check_frame(bytes, len, m, expected_fp, members, pb.get(), &h, err);
  if (st != PostingStatus::ok) return st;
  uint8_t ad[kAdBytes];
  associated_data(pb->format, pb->consortium_fp, pb->sender_fp, pb->release, ad);
  std::vector<uint8_t> plain(share_size(m));
  unsigned long long plain_len = 0;
  if (crypto_aead_xchacha20poly1305_ietf_decrypt(plain.data(), &plain_len, nullptr,
                                                 pb->sealed_share.bytes, pb->sealed_share.size, ad,
                                                 sizeof ad, pb->nonce, consortium_key) != 0 ||
      plain_len != plain.size()) {
    sodium_memzero(plain.data(), plain.size());
    return fail(PostingStatus::aead_failed, "the share does not open", err);
  }
  *body = std::move(plain);
  *header = h;
  return PostingStatus::ok;
}

}  // namespace p2b::pfcb
