#include "vfl/masked_message.hpp"

#include <sodium.h>

#include <cmath>
#include <cstring>

#include "wire/le_bytes.hpp"

namespace p2b::vfl {

namespace {

namespace wire = p2b::server::wire;

constexpr uint8_t kMagic[4] = {'P', '2', 'B', 'V'};
static_assert(crypto_box_MACBYTES == kMaskedMacBytes, "crypto_box tag size");
static_assert(crypto_box_NONCEBYTES == 24, "crypto_box nonce size");

// "P2BV" | u32le party | u64le round | 0x01 (party -> active party) | 0 x 7.
// One key pair per party and a round_id that only grows give a fresh nonce
// per message without sending one; a replay or reorder shows in the round.
void nonce_for(uint32_t party, uint64_t round, uint8_t nonce[crypto_box_NONCEBYTES]) {
  std::vector<uint8_t> n(kMagic, kMagic + sizeof kMagic);
  wire::put_u32(&n, party);
  wire::put_u64(&n, round);
  n.push_back(0x01);
  n.resize(crypto_box_NONCEBYTES, 0);
  std::memcpy(nonce, n.data(), n.size());
}

double get_f64(const uint8_t* p) {
  const uint64_t bits = wire::get_u64(p);
  double v = 0;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// The clear prefix: read before the box opens, checked again after.
MessageStatus check_prefix(const uint8_t* prefix, const MessageExpect& expect) {
  if (std::memcmp(prefix, kMagic, sizeof kMagic) != 0) return MessageStatus::malformed;
  if (wire::get_u32(prefix + 4) != expect.party_index) return MessageStatus::wrong_party;
  // The round is bound into the nonce, so a changed round cannot open, and
  // an old one needs no decryption to be refused.
  if (wire::get_u64(prefix + 8) <= expect.last_round_id) return MessageStatus::replayed;
  return MessageStatus::ok;
}

bool shape_ok(uint32_t k_items, uint32_t d) {
  return k_items >= 1 && k_items <= kMaxMaskedItems && d >= 2 && d <= kMaxMaskDim;
}

}  // namespace

std::size_t masked_message_bytes(uint32_t k_items, uint32_t d) {
  return kMaskedPrefixBytes + kMaskedMacBytes + kMaskedHeaderBytes +
         8 * static_cast<std::size_t>(k_items) * d;
}

const char* message_status_name(MessageStatus s) {
  switch (s) {
    case MessageStatus::ok:
      return "ok";
    case MessageStatus::bad_length:
      return "bad_length";
    case MessageStatus::malformed:
      return "malformed";
    case MessageStatus::wrong_party:
      return "wrong_party";
    case MessageStatus::replayed:
      return "replayed";
    case MessageStatus::not_openable:
      return "not_openable";
    case MessageStatus::stale_mask:
      return "stale_mask";
    case MessageStatus::wrong_shape:
      return "wrong_shape";
    case MessageStatus::non_finite:
      return "non_finite";
  }
  return "unknown";
}

bool box_key(const uint8_t* my_box_sk, const uint8_t* their_box_pk, BoxKey* out) {
  if (my_box_sk == nullptr || their_box_pk == nullptr || out == nullptr || sodium_init() < 0) {
    return false;
  }
  static_assert(sizeof out->key == crypto_box_BEFORENMBYTES, "box key size");
  return crypto_box_beforenm(out->key, their_box_pk, my_box_sk) == 0;
}

bool seal_masked_message(const MaskedHeader& h, const double* values, const uint8_t* party_box_sk,
                         const uint8_t* ap_box_pk, std::vector<uint8_t>* out, std::string* err) {
  BoxKey key;
  if (!box_key(party_box_sk, ap_box_pk, &key)) {
    *err = "bad keys";
    return false;
  }
  const bool ok = seal_masked_message(h, values, key, out, err);
  sodium_memzero(key.key, sizeof key.key);
  return ok;
}

bool seal_masked_message(const MaskedHeader& h, const double* values, const BoxKey& key,
                         std::vector<uint8_t>* out, std::string* err) {
  if (values == nullptr || out == nullptr || !shape_ok(h.k_items, h.d) || h.round_id == 0) {
    *err = "bad shape, round id or arguments";
    return false;
  }
  const std::size_t n_values = static_cast<std::size_t>(h.k_items) * h.d;
  for (std::size_t i = 0; i < n_values; ++i) {
    if (!std::isfinite(values[i])) {
      *err = "non-finite value";
      return false;
    }
  }
  if (sodium_init() < 0) {
    *err = "libsodium failed to start";
    return false;
  }
  std::vector<uint8_t> plain(kMagic, kMagic + sizeof kMagic);
  plain.reserve(kMaskedHeaderBytes + 8 * n_values);
  wire::put_u32(&plain, kMaskedMessageFormat);
  plain.insert(plain.end(), h.mask_id, h.mask_id + kMaskIdBytes);
  wire::put_u64(&plain, h.epoch);
  wire::put_u32(&plain, h.party_index);
  wire::put_u64(&plain, h.round_id);
  plain.insert(plain.end(), h.user_token, h.user_token + kUserTokenBytes);
  wire::put_u32(&plain, h.k_items);
  wire::put_u32(&plain, h.d);
  // The values are the bulk of a message: written in place, little-endian.
  const std::size_t head = plain.size();
  plain.resize(head + 8 * n_values);
  for (std::size_t i = 0; i < n_values; ++i) {
    uint64_t bits = 0;
    std::memcpy(&bits, &values[i], sizeof bits);
    uint8_t* at = plain.data() + head + 8 * i;
    for (int b = 0; b < 8; ++b) at[b] = static_cast<uint8_t>(bits >> (8 * b));
  }
  std::vector<uint8_t> msg(kMagic, kMagic + sizeof kMagic);
  wire::put_u32(&msg, h.party_index);
  wire::put_u64(&msg, h.round_id);
  msg.resize(kMaskedPrefixBytes + kMaskedMacBytes + plain.size());
  uint8_t nonce[crypto_box_NONCEBYTES];
  nonce_for(h.party_index, h.round_id, nonce);
  const bool ok = crypto_box_easy_afternm(msg.data() + kMaskedPrefixBytes, plain.data(),
                                          plain.size(), nonce, key.key) == 0;
  sodium_memzero(plain.data(), plain.size());
  if (!ok) {
    *err = "crypto_box_easy failed";
    return false;
  }
  *out = std::move(msg);
  return true;
}

MessageStatus check_masked_plaintext(const uint8_t* prefix, const uint8_t* plain, std::size_t len,
                                     const MessageExpect& expect, MaskedMessage* out) {
  const MessageStatus prefix_st = check_prefix(prefix, expect);
  if (prefix_st != MessageStatus::ok) return prefix_st;
  if (len < kMaskedHeaderBytes) return MessageStatus::bad_length;
  // The box authenticates party and round only through the nonce; the copies
  // inside must agree with the clear ones.
  if (std::memcmp(plain, kMagic, sizeof kMagic) != 0 ||
      wire::get_u32(plain + 4) != kMaskedMessageFormat ||
      wire::get_u32(plain + 32) != wire::get_u32(prefix + 4) ||
      wire::get_u64(plain + 36) != wire::get_u64(prefix + 8)) {
    return MessageStatus::malformed;
  }
  MaskedHeader h;
  std::memcpy(h.mask_id, plain + 8, kMaskIdBytes);
  h.epoch = wire::get_u64(plain + 24);
  h.party_index = wire::get_u32(plain + 32);
  h.round_id = wire::get_u64(plain + 36);
  std::memcpy(h.user_token, plain + 44, kUserTokenBytes);
  h.k_items = wire::get_u32(plain + 60);
  h.d = wire::get_u32(plain + 64);
  if (h.epoch != expect.current.epoch ||
      std::memcmp(h.mask_id, expect.current.mask_id, kMaskIdBytes) != 0) {
    return MessageStatus::stale_mask;
  }
  if (h.k_items != expect.k_items || h.d != expect.d || !shape_ok(h.k_items, h.d)) {
    return MessageStatus::wrong_shape;
  }
  const std::size_t n_values = static_cast<std::size_t>(h.k_items) * h.d;
  if (len != kMaskedHeaderBytes + 8 * n_values) return MessageStatus::bad_length;
  // Parsed into a per-thread scratch, then swapped in: `out` changes only on
  // success, and a caller that reuses `out` allocates nothing in steady state.
  thread_local std::vector<double> values;
  values.resize(n_values);
  for (std::size_t i = 0; i < n_values; ++i) {
    values[i] = get_f64(plain + kMaskedHeaderBytes + 8 * i);
    if (!std::isfinite(values[i])) return MessageStatus::non_finite;
  }
  out->header = h;
  out->values.swap(values);
  return MessageStatus::ok;
}

MessageStatus open_masked_message(const uint8_t* msg, std::size_t len, const uint8_t* ap_box_sk,
                                  const uint8_t* party_box_pk, const MessageExpect& expect,
                                  MaskedMessage* out) {
  BoxKey key;
  if (!box_key(ap_box_sk, party_box_pk, &key)) return MessageStatus::not_openable;
  const MessageStatus st = open_masked_message(msg, len, key, expect, out);
  sodium_memzero(key.key, sizeof key.key);
  return st;
}

MessageStatus open_masked_message(const uint8_t* msg, std::size_t len, const BoxKey& key,
                                  const MessageExpect& expect, MaskedMessage* out) {
  if (msg == nullptr || len < kMaskedPrefixBytes + kMaskedMacBytes + kMaskedHeaderBytes) {
    return MessageStatus::bad_length;
  }
  const MessageStatus prefix_st = check_prefix(msg, expect);
  if (prefix_st != MessageStatus::ok) return prefix_st;
  const uint32_t party = wire::get_u32(msg + 4);
  const uint64_t round = wire::get_u64(msg + 8);
  if (sodium_init() < 0) return MessageStatus::not_openable;
  uint8_t nonce[crypto_box_NONCEBYTES];
  nonce_for(party, round, nonce);
  const std::size_t box_len = len - kMaskedPrefixBytes;
  // Reused per thread: a K = 1000, d = 100 message is 800 KB, and a fresh
  // buffer each round costs page faults comparable to the decryption.
  thread_local std::vector<uint8_t> plain;
  plain.resize(box_len - kMaskedMacBytes);
  if (crypto_box_open_easy_afternm(plain.data(), msg + kMaskedPrefixBytes, box_len, nonce,
                                   key.key) != 0) {
    return MessageStatus::not_openable;
  }
  return check_masked_plaintext(msg, plain.data(), plain.size(), expect, out);
}

}  // namespace p2b::vfl
