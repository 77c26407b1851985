#include "vfl/mask_bundle.hpp"

#include <sodium.h>

#include <cmath>
#include <cstring>

#include "wire/le_bytes.hpp"

namespace p2b::vfl {

namespace {

namespace wire = p2b::server::wire;

constexpr uint8_t kMagic[4] = {'P', '2', 'B', 'Q'};
constexpr std::size_t kFpBytes = 16;
static_assert(crypto_sign_BYTES == kMaskBundleSignatureBytes, "Ed25519 signature size");
static_assert(crypto_box_SEALBYTES == kMaskBundleSealBytes, "crypto_box_seal overhead");

// Offsets of the fields after the partition, which has 4 bytes per party.
struct Layout {
  std::size_t mask_id, epoch, created, signer, values;
  explicit Layout(uint32_t n_parties) {
    mask_id = 20 + 4 * static_cast<std::size_t>(n_parties);
    epoch = mask_id + kMaskIdBytes;
    created = epoch + 8;
    signer = created + 8;
    values = signer + kFpBytes;
  }
};

void put_f64(std::vector<uint8_t>* out, double v) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  wire::put_u64(out, bits);
}

double get_f64(const uint8_t* p) {
  const uint64_t bits = wire::get_u64(p);
  double v = 0;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

void fingerprint(const uint8_t* pk, uint8_t* fp) {
  crypto_generichash(fp, kFpBytes, pk, crypto_sign_PUBLICKEYBYTES, nullptr, 0);
}

}  // namespace

std::size_t mask_bundle_signed_bytes(uint32_t n_parties, uint32_t d, uint32_t d_j) {
  return kMaskBundleFixedBytes + 4 * static_cast<std::size_t>(n_parties) +
         8 * static_cast<std::size_t>(d) * d_j;
}

std::size_t mask_bundle_sealed_bytes(uint32_t n_parties, uint32_t d, uint32_t d_j) {
  return mask_bundle_signed_bytes(n_parties, d, d_j) + kMaskBundleSignatureBytes +
         kMaskBundleSealBytes;
}

const char* bundle_status_name(BundleStatus s) {
  switch (s) {
    case BundleStatus::ok:
      return "ok";
    case BundleStatus::bad_length:
      return "bad_length";
    case BundleStatus::not_openable:
      return "not_openable";
    case BundleStatus::malformed:
      return "malformed";
    case BundleStatus::untrusted_signer:
      return "untrusted_signer";
    case BundleStatus::bad_signature:
      return "bad_signature";
    case BundleStatus::wrong_party:
      return "wrong_party";
    case BundleStatus::wrong_dimension:
      return "wrong_dimension";
    case BundleStatus::bad_partition:
      return "bad_partition";
    case BundleStatus::zero_block:
      return "zero_block";
    case BundleStatus::rollback:
      return "rollback";
    case BundleStatus::not_orthonormal:
      return "not_orthonormal";
  }
  return "unknown";
}

bool encode_mask_bundle(const Mask& mask, const Partition& partition, uint32_t party_index,
                        uint64_t created_unix, const uint8_t* pmg_sign_sk,
                        std::vector<uint8_t>* out, std::string* err) {
  MaskBlock b;
  if (pmg_sign_sk == nullptr || out == nullptr || check_mask(mask) != MaskStatus::ok ||
      !block(mask, partition, party_index, &b)) {
    *err = "bad mask, partition or party index";
    return false;
  }
  if (sodium_init() < 0) {
    *err = "libsodium failed to start";
    return false;
  }
  const auto n_parties = static_cast<uint32_t>(partition.size());
  std::vector<uint8_t> v;
  v.reserve(mask_bundle_signed_bytes(n_parties, b.d, b.d_j) + kMaskBundleSignatureBytes);
  v.insert(v.end(), kMagic, kMagic + sizeof kMagic);
  wire::put_u32(&v, kMaskBundleFormat);
  wire::put_u32(&v, b.d);
  wire::put_u32(&v, party_index);
  wire::put_u32(&v, n_parties);
  for (const uint32_t dj : partition) wire::put_u32(&v, dj);
  v.insert(v.end(), b.mask_id, b.mask_id + kMaskIdBytes);
  wire::put_u64(&v, b.epoch);
  wire::put_u64(&v, created_unix);
  // An Ed25519 secret key carries its public key in its last 32 bytes.
  uint8_t fp[kFpBytes];
  fingerprint(pmg_sign_sk + 32, fp);
  v.insert(v.end(), fp, fp + kFpBytes);
  for (const double x : b.q) put_f64(&v, x);
  const std::size_t signed_len = v.size();
  v.resize(signed_len + kMaskBundleSignatureBytes);
  crypto_sign_detached(v.data() + signed_len, nullptr, v.data(), signed_len, pmg_sign_sk);
  *out = std::move(v);
  return true;
}

bool seal_mask_bundle(const Mask& mask, const Partition& partition, uint32_t party_index,
                      uint64_t created_unix, const uint8_t* pmg_sign_sk,
                      const uint8_t* party_box_pk, std::vector<uint8_t>* out, std::string* err) {
  std::vector<uint8_t> plain;
  if (party_box_pk == nullptr ||
      !encode_mask_bundle(mask, partition, party_index, created_unix, pmg_sign_sk, &plain, err)) {
    if (party_box_pk == nullptr) *err = "no party key";
    return false;
  }
  std::vector<uint8_t> sealed(plain.size() + kMaskBundleSealBytes);
  const bool ok = crypto_box_seal(sealed.data(), plain.data(), plain.size(), party_box_pk) == 0;
  sodium_memzero(plain.data(), plain.size());  // the block is the party's secret
  if (!ok) {
    *err = "crypto_box_seal failed";
    return false;
  }
  *out = std::move(sealed);
  return true;
}

BundleStatus verify_mask_bundle(const uint8_t* plain, std::size_t len, const uint8_t* pmg_sign_pk,
                                const BundleExpect& expect, OpenedBundle* out) {
  if (plain == nullptr || len < kMaskBundleFixedBytes + kMaskBundleSignatureBytes) {
    return BundleStatus::bad_length;
  }
  if (std::memcmp(plain, kMagic, sizeof kMagic) != 0 ||
      wire::get_u32(plain + 4) != kMaskBundleFormat) {
    return BundleStatus::malformed;
  }
  const uint32_t d = wire::get_u32(plain + 8);
  const uint32_t party = wire::get_u32(plain + 12);
  const uint32_t n_parties = wire::get_u32(plain + 16);
  if (n_parties == 0 || n_parties > kMaxMaskDim) return BundleStatus::bad_partition;
  const Layout at(n_parties);
  if (len < at.values + kMaskBundleSignatureBytes) return BundleStatus::bad_length;
  // Only the framing is read before the signature: the signer must be the
  // pinned key and its signature must hold before any field is believed.
  uint8_t trusted_fp[kFpBytes];
  fingerprint(pmg_sign_pk, trusted_fp);
  if (sodium_memcmp(plain + at.signer, trusted_fp, kFpBytes) != 0) {
    return BundleStatus::untrusted_signer;
  }
  const std::size_t signed_len = len - kMaskBundleSignatureBytes;
  if (crypto_sign_verify_detached(plain + signed_len, plain, signed_len, pmg_sign_pk) != 0) {
    return BundleStatus::bad_signature;
  }
  if (party != expect.party_index) return BundleStatus::wrong_party;
  Partition partition(n_parties);
  for (std::size_t i = 0; i < n_parties; ++i) partition[i] = wire::get_u32(plain + 20 + 4 * i);
  if (d != expect.d) return BundleStatus::wrong_dimension;
  const PartitionCheck pc = check_partition(partition, d);
  if (pc == PartitionCheck::zero_block) return BundleStatus::zero_block;
  if (pc != PartitionCheck::ok || party >= n_parties) return BundleStatus::bad_partition;
  const uint32_t d_j = partition[party];
  if (signed_len != mask_bundle_signed_bytes(n_parties, d, d_j)) return BundleStatus::bad_length;
  const uint64_t epoch = wire::get_u64(plain + at.epoch);
  if (expect.last_accepted != nullptr && epoch <= expect.last_accepted->epoch) {
    return BundleStatus::rollback;
  }
  OpenedBundle o;
  o.block.d = d;
  o.block.party_index = party;
  o.block.col_offset = column_offset(partition, party);
  o.block.d_j = d_j;
  o.block.partition = std::move(partition);
  o.block.q.resize(static_cast<std::size_t>(d) * d_j);
  for (std::size_t i = 0; i < o.block.q.size(); ++i)
    o.block.q[i] = get_f64(plain + at.values + 8 * i);
  if (!(orthogonality_error(o.block.q.data(), d, d_j) <= orthogonality_tolerance(d))) {
    return BundleStatus::not_orthonormal;
  }
  std::memcpy(o.block.mask_id, plain + at.mask_id, kMaskIdBytes);
  o.block.epoch = epoch;
  o.created_unix = wire::get_u64(plain + at.created);
  std::memcpy(o.signer_fp, plain + at.signer, kFpBytes);
  *out = std::move(o);
  return BundleStatus::ok;
}

BundleStatus open_mask_bundle(const uint8_t* sealed, std::size_t len, const uint8_t* party_box_pk,
                              const uint8_t* party_box_sk, const uint8_t* pmg_sign_pk,
                              const BundleExpect& expect, OpenedBundle* out) {
  if (sealed == nullptr ||
      len < kMaskBundleSealBytes + kMaskBundleFixedBytes + kMaskBundleSignatureBytes) {
    return BundleStatus::bad_length;
  }
  if (sodium_init() < 0) return BundleStatus::not_openable;
  std::vector<uint8_t> plain(len - kMaskBundleSealBytes);
  if (crypto_box_seal_open(plain.data(), sealed, len, party_box_pk, party_box_sk) != 0) {
    return BundleStatus::not_openable;
  }
  const BundleStatus st = verify_mask_bundle(plain.data(), plain.size(), pmg_sign_pk, expect, out);
  sodium_memzero(plain.data(), plain.size());
  return st;
}

}  // namespace p2b::vfl
