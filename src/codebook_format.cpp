#include "p2b/codebook_format.hpp"

#include <pb_decode.h>
#include <pb_encode.h>

#include <cmath>
#include <cstring>

#include "p2b.pb.h"
#include "p2b/config.hpp"

namespace p2b {

// Centroids are hashed straight from memory as f32le.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "p2b formats assume little-endian");

namespace {

constexpr uint8_t kMagic[4] = {'P', '2', 'B', 'C'};
constexpr uint32_t kFormat = 1;

// Centroid values one row holds as generated (proto/p2b.options); a build
// with a larger P2B_MAX_DIM fingerprints wider codebooks but has no file for them.
constexpr uint32_t kFileMaxDim = sizeof(p2b_v1_CodebookRow::centroid) / sizeof(float);

bool shape_ok(uint32_t k, uint32_t dim, uint32_t digits) {
  return k >= 1 && k <= kMaxCodes && dim >= 1 && dim <= kMaxDim && digits >= 1 &&
         digits <= kMaxDigits;
}

bool file_shape_ok(uint32_t k, uint32_t dim, uint32_t digits) {
  return shape_ok(k, dim, digits) && dim <= kFileMaxDim;
}

void put_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// Writes the whole file through `os`, which may be a sizing stream.
bool write_codebook(pb_ostream_t* os, const float* centroids, uint32_t k, uint32_t dim,
                    uint32_t digits, const uint8_t* fp) {
  if (!pb_write(os, kMagic, sizeof kMagic)) return false;
  p2b_v1_CodebookHeader header = p2b_v1_CodebookHeader_init_zero;
  header.format = kFormat;
  header.k = k;
  header.dim = dim;
  header.digits = digits;
  std::memcpy(header.fingerprint, fp, kFingerprintBytes);
  if (!pb_encode_delimited(os, p2b_v1_CodebookHeader_fields, &header)) return false;
  for (uint32_t c = 0; c < k; ++c) {
    p2b_v1_CodebookRow row = p2b_v1_CodebookRow_init_zero;
    row.code = c;
    row.centroid_count = static_cast<pb_size_t>(dim);
    std::memcpy(row.centroid, centroids + static_cast<std::size_t>(c) * dim, dim * sizeof(float));
    if (!pb_encode_delimited(os, p2b_v1_CodebookRow_fields, &row)) return false;
  }
  return true;
}

}  // namespace

Status codebook_fingerprint(const CryptoPort& crypto, const float* centroids, uint32_t k,
                            uint32_t dim, uint32_t digits, uint8_t* fp) {
  if (centroids == nullptr || fp == nullptr) return Status::null_pointer;
  if (!shape_ok(k, dim, digits)) return Status::bad_codebook;
  uint8_t pre[4 + 12 + 32];
  std::memcpy(pre, kMagic, 4);
  put_u32(pre + 4, k);
  put_u32(pre + 8, dim);
  put_u32(pre + 12, digits);
  const std::size_t bytes = static_cast<std::size_t>(k) * dim * sizeof(float);
  if (crypto.hash(pre + 16, 32, reinterpret_cast<const uint8_t*>(centroids), bytes) != 0 ||
      crypto.hash(fp, kFingerprintBytes, pre, sizeof pre) != 0) {
    return Status::crypto_failure;
  }
  return Status::ok;
}

Status encoded_codebook_size(const float* centroids, uint32_t k, uint32_t dim, uint32_t digits,
                             std::size_t* bytes) {
  if (centroids == nullptr || bytes == nullptr) return Status::null_pointer;
  if (!file_shape_ok(k, dim, digits)) return Status::bad_codebook;
  const uint8_t zero_fp[kFingerprintBytes] = {};
  pb_ostream_t sizing = PB_OSTREAM_SIZING;
  if (!write_codebook(&sizing, centroids, k, dim, digits, zero_fp)) return Status::bad_codebook;
  *bytes = sizing.bytes_written;
  return Status::ok;
}

Status encode_codebook(const CryptoPort& crypto, const float* centroids, uint32_t k, uint32_t dim,
                       uint32_t digits, uint8_t* out, std::size_t cap, std::size_t* written) {
  if (out == nullptr || written == nullptr) return Status::null_pointer;
  std::size_t need = 0;
  Status st = encoded_codebook_size(centroids, k, dim, digits, &need);
  if (st != Status::ok) return st;
  if (cap < need) return Status::buffer_too_small;
  const std::size_t n = static_cast<std::size_t>(k) * dim;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(centroids[i])) return Status::bad_codebook;
  }
  uint8_t fp[kFingerprintBytes];
  st = codebook_fingerprint(crypto, centroids, k, dim, digits, fp);
  if (st != Status::ok) return st;
  pb_ostream_t os = pb_ostream_from_buffer(out, cap);
  if (!write_codebook(&os, centroids, k, dim, digits, fp)) return Status::bad_codebook;
  *written = os.bytes_written;
  return Status::ok;
}

Status parse_codebook(const CryptoPort& crypto, const uint8_t* in, std::size_t len,
                      float* centroids, std::size_t cap, CodebookInfo* info) {
  if (in == nullptr || centroids == nullptr || info == nullptr) return Status::null_pointer;
  if (len < sizeof kMagic || std::memcmp(in, kMagic, sizeof kMagic) != 0) {
    return Status::malformed_input;
  }
  pb_istream_t is = pb_istream_from_buffer(in + sizeof kMagic, len - sizeof kMagic);
  p2b_v1_CodebookHeader header = p2b_v1_CodebookHeader_init_zero;
  if (!pb_decode_delimited(&is, p2b_v1_CodebookHeader_fields, &header)) {
    return Status::malformed_input;
  }
  if (header.format != kFormat) return Status::unsupported_version;
  if (!file_shape_ok(header.k, header.dim, header.digits)) return Status::malformed_input;
  const std::size_t n = static_cast<std::size_t>(header.k) * header.dim;
  if (cap < n) return Status::buffer_too_small;
  // Rows are validated in full before the caller's buffer is touched: the
  // first pass only reads, the second copies.
  for (int pass = 0; pass < 2; ++pass) {
    pb_istream_t rows = is;
    for (uint32_t c = 0; c < header.k; ++c) {
      p2b_v1_CodebookRow row = p2b_v1_CodebookRow_init_zero;
      if (!pb_decode_delimited(&rows, p2b_v1_CodebookRow_fields, &row) || row.code != c ||
          row.centroid_count != header.dim) {
        return Status::malformed_input;
      }
      for (uint32_t i = 0; i < header.dim; ++i) {
        if (!std::isfinite(row.centroid[i])) return Status::malformed_input;
      }
      if (pass == 1) {
        std::memcpy(centroids + static_cast<std::size_t>(c) * header.dim, row.centroid,
                    header.dim * sizeof(float));
      }
    }
    if (rows.bytes_left != 0) return Status::malformed_input;
    if (pass == 0) continue;
    uint8_t fp[kFingerprintBytes];
    const Status st =
        codebook_fingerprint(crypto, centroids, header.k, header.dim, header.digits, fp);
    if (st != Status::ok) return st;
    if (std::memcmp(fp, header.fingerprint, kFingerprintBytes) != 0) {
      return Status::malformed_input;
    }
  }
  info->k = header.k;
  info->dim = header.dim;
  info->digits = header.digits;
  std::memcpy(info->fingerprint, header.fingerprint, kFingerprintBytes);
  return Status::ok;
}

}  // namespace p2b
