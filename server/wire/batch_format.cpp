#include "batch_format.hpp"

#include <sodium.h>

#include <cstring>

#include "wire/le_bytes.hpp"

namespace p2b::server {

namespace {

constexpr uint8_t kMagic[4] = {'P', '2', 'B', 'B'};
constexpr uint32_t kFormat = 2;
constexpr std::size_t kPartitionAt = 8 + kBatchIdBytes;
constexpr std::size_t kSignerAt = kPartitionAt + 4;
constexpr std::size_t kCountAt = kSignerAt + kFingerprintBytes;

const VerifyKey* find_signer(const uint8_t* fp, const VerifyKey* keys, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (sodium_memcmp(keys[i].fp, fp, kFingerprintBytes) == 0) return &keys[i];
  }
  return nullptr;
}

}  // namespace

bool make_verify_key(const uint8_t* pk, VerifyKey* out) {
  if (sodium_init() < 0) return false;
  std::memcpy(out->pk, pk, kPublicKeyBytes);
  return crypto_generichash(out->fp, kFingerprintBytes, pk, kPublicKeyBytes, nullptr, 0) == 0;
}

std::vector<uint8_t> encode_signed_batch(const Batch& batch, const uint8_t* sign_sk) {
  // The public half of a libsodium Ed25519 secret key is its last 32 bytes.
  uint8_t signer_fp[kFingerprintBytes];
  crypto_generichash(signer_fp, sizeof signer_fp, sign_sk + 32, kPublicKeyBytes, nullptr, 0);
  std::vector<uint8_t> out;
  out.reserve(kBatchHeaderBytes + batch.records.size() * kBatchRecordBytes + kSignatureBytes);
  out.insert(out.end(), kMagic, kMagic + sizeof kMagic);
  wire::put_u32(&out, kFormat);
  out.insert(out.end(), batch.id.begin(), batch.id.end());
  wire::put_u32(&out, batch.partition);
  out.insert(out.end(), signer_fp, signer_fp + sizeof signer_fp);
  wire::put_u32(&out, static_cast<uint32_t>(batch.records.size()));
  for (const BatchRecord& r : batch.records) {
    wire::put_u32(&out, r.crowd_id);
    out.insert(out.end(), r.inner.begin(), r.inner.end());
  }
  const std::size_t signed_len = out.size();
  out.resize(signed_len + kSignatureBytes);
  crypto_sign_detached(out.data() + signed_len, nullptr, out.data(), signed_len, sign_sk);
  return out;
}

const char* batch_check_str(BatchCheck c) {
  switch (c) {
    case BatchCheck::ok:
      return "ok";
    case BatchCheck::malformed:
      return "malformed batch";
    case BatchCheck::unknown_signer:
      return "the batch names no pinned shuffler key";
    case BatchCheck::bad_signature:
      return "the batch signature does not verify";
  }
  return "malformed batch";
}

BatchCheck verify_batch(const uint8_t* data, std::size_t len, const VerifyKey* keys,
                        std::size_t n_keys, VerifiedBatch* out, std::string* err) {
  if (data == nullptr || len < kBatchHeaderBytes + kSignatureBytes ||
      std::memcmp(data, kMagic, sizeof kMagic) != 0) {
    *err = "not a batch";
    return BatchCheck::malformed;
  }
  if (wire::get_u32(data + 4) != kFormat) {
    *err = "unsupported batch format";
    return BatchCheck::malformed;
  }
  const uint32_t count = wire::get_u32(data + kCountAt);
  if (count > kMaxBatchRecords ||
      len != kBatchHeaderBytes + std::size_t{count} * kBatchRecordBytes + kSignatureBytes) {
    *err = "batch length does not match its record count";
    return BatchCheck::malformed;
  }
  const VerifyKey* signer = find_signer(data + kSignerAt, keys, n_keys);
  if (signer == nullptr) {
    *err = batch_check_str(BatchCheck::unknown_signer);
    return BatchCheck::unknown_signer;
  }
  const std::size_t signed_len = len - kSignatureBytes;
  if (sodium_init() < 0 ||
      crypto_sign_verify_detached(data + signed_len, data, signed_len, signer->pk) != 0) {
    *err = batch_check_str(BatchCheck::bad_signature);
    return BatchCheck::bad_signature;
  }
  Batch& b = out->batch;
  std::memcpy(b.id.data(), data + 8, kBatchIdBytes);
  b.partition = wire::get_u32(data + kPartitionAt);
  std::memcpy(out->signer_fp, data + kSignerAt, kFingerprintBytes);
  b.records.resize(count);
  const uint8_t* rec = data + kBatchHeaderBytes;
  for (uint32_t i = 0; i < count; ++i, rec += kBatchRecordBytes) {
    b.records[i].crowd_id = wire::get_u32(rec);
    std::memcpy(b.records[i].inner.data(), rec + 4, kInnerBytes);
  }
  out->digest = batch_digest(data, len);
  return BatchCheck::ok;
}

uint32_t declared_record_count(const uint8_t* data, std::size_t len) {
  return len >= kBatchHeaderBytes ? wire::get_u32(data + kCountAt) : 0;
}

BatchDigest batch_digest(const uint8_t* encoded, std::size_t len) {
  BatchDigest d{};
  crypto_generichash(d.data(), d.size(), encoded, len - kSignatureBytes, nullptr, 0);
  return d;
}

InnerDigest inner_digest(const InnerCiphertext& inner) {
  InnerDigest d{};
  crypto_generichash(d.data(), d.size(), inner.data(), inner.size(), nullptr, 0);
  return d;
}

std::string hex_of(const uint8_t* p, std::size_t n) {
  std::string s(2 * n + 1, '\0');
  sodium_bin2hex(s.data(), s.size(), p, n);
  s.pop_back();  // the terminator sodium_bin2hex writes
  return s;
}

std::string batch_id_hex(const BatchId& id) {
  return hex_of(id.data(), id.size());
}

}  // namespace p2b::server
