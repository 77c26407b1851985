#include "batch_format.hpp"

#include <sodium.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "wire/le_bytes.hpp"

namespace p2b::server {

namespace {

constexpr uint8_t kMagic[4] = {'P', '2', 'B', 'B'};
constexpr uint32_t kFormat = 3;
// The last format without thresholds: named in its refusal.
constexpr uint32_t kFormatWithoutThresholds = 2;
constexpr std::size_t kPartitionAt = 8 + kBatchIdBytes;
constexpr std::size_t kSignerAt = kPartitionAt + 4;
constexpr std::size_t kThresholdAt = kSignerAt + kFingerprintBytes;
constexpr std::size_t kSigmaAt = kThresholdAt + 4;
constexpr std::size_t kCountAt = kSigmaAt + 8;
static_assert(kCountAt + 4 == kBatchHeaderBytes, "batch header layout");

uint64_t bits_of(double v) {
  uint64_t bits = 0;
  static_assert(sizeof bits == sizeof v, "binary64");
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

double double_of(uint64_t bits) {
  double v = 0;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// l of at least 1; sigma finite, with its sign bit clear (so not -0 either):
// each setting has exactly one encoding, and the digest one value.
bool canonical(uint32_t l, uint64_t sigma_bits) {
  constexpr uint64_t kSignBit = uint64_t{1} << 63;
  return l >= 1 && (sigma_bits & kSignBit) == 0 && std::isfinite(double_of(sigma_bits));
}

const VerifyKey* find_signer(const uint8_t* fp, const VerifyKey* keys, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (sodium_memcmp(keys[i].fp, fp, kFingerprintBytes) == 0) return &keys[i];
  }
  return nullptr;
}

}  // namespace

bool same_thresholds(const BatchThresholds& a, const BatchThresholds& b) {
  return a.l == b.l && bits_of(a.sigma + 0.0) == bits_of(b.sigma + 0.0);
}

std::string thresholds_str(const BatchThresholds& t) {
  // The shortest of 15 or 17 digits that reads back as the same double, so
  // two settings that differ never print alike.
  char sigma[32];
  std::snprintf(sigma, sizeof sigma, "%.15g", t.sigma);
  if (bits_of(std::strtod(sigma, nullptr)) != bits_of(t.sigma))
    std::snprintf(sigma, sizeof sigma, "%.17g", t.sigma);
  return "l=" + std::to_string(t.l) + " sigma=" + sigma;
}

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
  wire::put_u32(&out, batch.thresholds.l);
  // + 0.0 turns -0 into +0, the one encoding of zero.
  wire::put_u64(&out, bits_of(batch.thresholds.sigma + 0.0));
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
  // The magic and the format first: an old batch, even an empty one shorter
  // than this format's header, is refused by its name.
  if (data == nullptr || len < 8 || std::memcmp(data, kMagic, sizeof kMagic) != 0) {
    *err = "not a batch";
    return BatchCheck::malformed;
  }
  const uint32_t format = wire::get_u32(data + 4);
  if (format == kFormatWithoutThresholds) {
    *err =
        "batch format 2 carries no crowd thresholds; this analyzer reads format 3 only: "
        "upgrade the shuffler";
    return BatchCheck::malformed;
  }
  if (format != kFormat) {
    *err = "unsupported batch format " + std::to_string(format);
    return BatchCheck::malformed;
  }
  if (len < kBatchHeaderBytes + kSignatureBytes) {
    *err = "not a batch";
    return BatchCheck::malformed;
  }
  const uint32_t count = wire::get_u32(data + kCountAt);
  if (count > kMaxBatchRecords ||
      len != kBatchHeaderBytes + std::size_t{count} * kBatchRecordBytes + kSignatureBytes) {
    *err = "batch length does not match its record count";
    return BatchCheck::malformed;
  }
  if (!canonical(wire::get_u32(data + kThresholdAt), wire::get_u64(data + kSigmaAt))) {
    *err = "the batch's crowd thresholds are not canonical (l >= 1, sigma finite and >= +0)";
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
  b.thresholds.l = wire::get_u32(data + kThresholdAt);
  b.thresholds.sigma = double_of(wire::get_u64(data + kSigmaAt));
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
