#include "batch_ack.hpp"

#include <sodium.h>

#include <cstring>

#include "wire/le_bytes.hpp"

namespace p2b::server {

namespace {

constexpr uint8_t kMagic[4] = {'P', '2', 'B', 'K'};
constexpr uint32_t kFormat = 2;
constexpr std::size_t kIdAt = 8;
constexpr std::size_t kDigestAt = kIdAt + kBatchIdBytes;
constexpr std::size_t kVersionAt = kDigestAt + kBatchDigestBytes;
constexpr std::size_t kCountsAt = kVersionAt + 8;
constexpr std::size_t kSignedBytes = kCountsAt + 4 * (3 + kAckRefusalReasons);
static_assert(kSignedBytes + kSignatureBytes == kBatchAckBytes, "ack layout");

}  // namespace

std::vector<uint8_t> encode_signed_ack(const BatchAck& ack, const uint8_t* sign_sk) {
  std::vector<uint8_t> out;
  out.reserve(kBatchAckBytes);
  out.insert(out.end(), kMagic, kMagic + sizeof kMagic);
  wire::put_u32(&out, kFormat);
  out.insert(out.end(), ack.id.begin(), ack.id.end());
  out.insert(out.end(), ack.digest.begin(), ack.digest.end());
  wire::put_u64(&out, ack.model_version);
  wire::put_u32(&out, ack.records);
  wire::put_u32(&out, ack.applied);
  wire::put_u32(&out, ack.quarantined);
  for (const uint32_t r : ack.refused) wire::put_u32(&out, r);
  out.resize(kBatchAckBytes);
  crypto_sign_detached(out.data() + kSignedBytes, nullptr, out.data(), kSignedBytes, sign_sk);
  return out;
}

AckCheck verify_ack(const uint8_t* data, std::size_t len, const uint8_t* verify_pk, BatchAck* out) {
  if (data == nullptr || len != kBatchAckBytes || std::memcmp(data, kMagic, sizeof kMagic) != 0 ||
      wire::get_u32(data + 4) != kFormat) {
    return AckCheck::malformed;
  }
  if (sodium_init() < 0 ||
      crypto_sign_verify_detached(data + kSignedBytes, data, kSignedBytes, verify_pk) != 0) {
    return AckCheck::bad_signature;
  }
  std::memcpy(out->id.data(), data + kIdAt, kBatchIdBytes);
  std::memcpy(out->digest.data(), data + kDigestAt, kBatchDigestBytes);
  out->model_version = wire::get_u64(data + kVersionAt);
  const uint8_t* at = data + kCountsAt;
  out->records = wire::get_u32(at);
  out->applied = wire::get_u32(at + 4);
  out->quarantined = wire::get_u32(at + 8);
  at += 12;
  for (uint32_t& r : out->refused) {
    r = wire::get_u32(at);
    at += 4;
  }
  return AckCheck::ok;
}

}  // namespace p2b::server
