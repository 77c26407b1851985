#include "vfl/masked_request.hpp"

#include <sodium.h>

#include <cstring>

#include "wire/le_bytes.hpp"

namespace p2b::vfl {

namespace {

namespace wire = p2b::server::wire;

constexpr uint8_t kMagic[4] = {'P', '2', 'B', 'R'};

// "P2BR" | u32le party | u64le round | 0x02 (active party -> party) | 0 x 7.
// The same key pair boxes the P2BV answers with "P2BV" and 0x01, so no
// request nonce can equal an answer's.
void nonce_for(uint32_t party, uint64_t round, uint8_t nonce[crypto_box_NONCEBYTES]) {
  std::vector<uint8_t> n(kMagic, kMagic + sizeof kMagic);
  wire::put_u32(&n, party);
  wire::put_u64(&n, round);
  n.push_back(0x02);
  n.resize(crypto_box_NONCEBYTES, 0);
  std::memcpy(nonce, n.data(), n.size());
}

}  // namespace

std::size_t masked_request_bytes(uint32_t n_items) {
  return kRequestPrefixBytes + crypto_box_MACBYTES + kRequestHeaderBytes +
         4 * static_cast<std::size_t>(n_items);
}

const char* request_status_name(RequestStatus s) {
  switch (s) {
    case RequestStatus::ok:
      return "ok";
    case RequestStatus::bad_length:
      return "bad_length";
    case RequestStatus::malformed:
      return "malformed";
    case RequestStatus::wrong_party:
      return "wrong_party";
    case RequestStatus::replayed:
      return "replayed";
    case RequestStatus::not_openable:
      return "not_openable";
    case RequestStatus::bad_items:
      return "bad_items";
  }
  return "unknown";
}

bool seal_masked_request(const MaskedRequest& r, const uint8_t* ap_box_sk,
                         const uint8_t* party_box_pk, std::vector<uint8_t>* out, std::string* err) {
  if (r.round_id == 0 || r.item_ids.empty() || r.item_ids.size() > kMaxMaskedItems ||
      ap_box_sk == nullptr || party_box_pk == nullptr || out == nullptr) {
    *err = "bad request: round_id 0, no items, too many items or no key";
    return false;
  }
  if (sodium_init() < 0) {
    *err = "libsodium failed to start";
    return false;
  }
  std::vector<uint8_t> plain(kMagic, kMagic + sizeof kMagic);
  wire::put_u32(&plain, kMaskedRequestFormat);
  wire::put_u32(&plain, r.party_index);
  wire::put_u64(&plain, r.round_id);
  plain.insert(plain.end(), r.user_token, r.user_token + kUserTokenBytes);
  wire::put_u32(&plain, static_cast<uint32_t>(r.item_ids.size()));
  for (const uint32_t id : r.item_ids) wire::put_u32(&plain, id);
  std::vector<uint8_t> msg(kMagic, kMagic + sizeof kMagic);
  wire::put_u32(&msg, r.party_index);
  wire::put_u64(&msg, r.round_id);
  msg.resize(kRequestPrefixBytes + crypto_box_MACBYTES + plain.size());
  uint8_t nonce[crypto_box_NONCEBYTES];
  nonce_for(r.party_index, r.round_id, nonce);
  if (crypto_box_easy(msg.data() + kRequestPrefixBytes, plain.data(), plain.size(), nonce,
                      party_box_pk, ap_box_sk) != 0) {
    *err = "crypto_box_easy failed";
    return false;
  }
  *out = std::move(msg);
  return true;
}

RequestStatus open_masked_request(const uint8_t* msg, std::size_t len, const uint8_t* party_box_sk,
                                  const uint8_t* ap_box_pk, uint32_t party_index,
                                  uint64_t last_round_id, MaskedRequest* out) {
  const std::size_t min_len = masked_request_bytes(1);
  if (msg == nullptr || len < min_len || len > masked_request_bytes(kMaxMaskedItems) ||
      (len - min_len) % 4 != 0) {
    return RequestStatus::bad_length;
  }
  if (std::memcmp(msg, kMagic, sizeof kMagic) != 0) return RequestStatus::malformed;
  const uint32_t party = wire::get_u32(msg + 4);
  const uint64_t round = wire::get_u64(msg + 8);
  if (party != party_index) return RequestStatus::wrong_party;
  // Refused before decryption: an old round needs no work to turn away.
  if (round <= last_round_id) return RequestStatus::replayed;
  if (sodium_init() < 0) return RequestStatus::not_openable;
  std::vector<uint8_t> plain(len - kRequestPrefixBytes - crypto_box_MACBYTES);
  uint8_t nonce[crypto_box_NONCEBYTES];
  nonce_for(party, round, nonce);
  if (crypto_box_open_easy(plain.data(), msg + kRequestPrefixBytes, len - kRequestPrefixBytes,
                           nonce, ap_box_pk, party_box_sk) != 0) {
    return RequestStatus::not_openable;
  }
  const RequestStatus st = check_request_plaintext(msg, plain.data(), plain.size(), out);
  sodium_memzero(plain.data(), plain.size());
  return st;
}

RequestStatus check_request_plaintext(const uint8_t* prefix, const uint8_t* p, std::size_t len,
                                      MaskedRequest* out) {
  if (prefix == nullptr || p == nullptr || len < kRequestHeaderBytes) {
    return RequestStatus::bad_length;
  }
  const uint32_t party = wire::get_u32(prefix + 4);
  const uint64_t round = wire::get_u64(prefix + 8);
  if (std::memcmp(prefix, kMagic, sizeof kMagic) != 0 ||
      std::memcmp(p, kMagic, sizeof kMagic) != 0 || wire::get_u32(p + 4) != kMaskedRequestFormat ||
      wire::get_u32(p + 8) != party || wire::get_u64(p + 12) != round) {
    return RequestStatus::malformed;
  }
  const uint32_t n = wire::get_u32(p + 36);
  if (n == 0 || n > kMaxMaskedItems) return RequestStatus::bad_items;
  if (len != kRequestHeaderBytes + 4 * static_cast<std::size_t>(n)) {
    return RequestStatus::bad_length;
  }
  MaskedRequest r;
  r.party_index = party;
  r.round_id = round;
  std::memcpy(r.user_token, p + 20, kUserTokenBytes);
  r.item_ids.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    r.item_ids[i] = wire::get_u32(p + kRequestHeaderBytes + 4 * static_cast<std::size_t>(i));
  }
  *out = std::move(r);
  return RequestStatus::ok;
}

}  // namespace p2b::vfl
