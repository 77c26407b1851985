#include "vfl/mask.hpp"

#include <sodium.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstring>
#include <limits>

#include "wire/le_bytes.hpp"

namespace p2b::vfl {

namespace {

using ConstMat = Eigen::Map<const Eigen::MatrixXd>;

// Domain separation of the two keyed hashes of the seed, so the mask id is
// never a key of the Gaussian stream.
constexpr char kColumnDomain[] = "p2b-vfl Q column stream";
constexpr char kIdDomain[] = "p2b-vfl Q mask id";

void put_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// A keyed BLAKE2b of (domain || u32le n), so each column has its own
// ChaCha20 key and the stream never has to hold d*d values at once.
void derive(const uint8_t seed[kMaskSeedBytes], const char* domain, std::size_t domain_len,
            uint32_t n, uint8_t* out, std::size_t out_len) {
  uint8_t msg[64] = {};
  std::memcpy(msg, domain, domain_len);
  put_u32(msg + domain_len, n);
  crypto_generichash(out, out_len, msg, domain_len + 4, seed, kMaskSeedBytes);
  sodium_memzero(msg, sizeof msg);
}

// Box-Muller on 53-bit uniforms: u1 in (0, 1] keeps the log finite, and two
// uniforms always make two normals, so the stream length is known up front.
void gaussian_column(const uint8_t seed[kMaskSeedBytes], uint32_t col, uint32_t d, double* out) {
  uint8_t key[randombytes_SEEDBYTES];
  derive(seed, kColumnDomain, sizeof kColumnDomain - 1, col, key, sizeof key);
  const std::size_t pairs = (static_cast<std::size_t>(d) + 1) / 2;
  std::vector<uint8_t> bytes(pairs * 16);
  randombytes_buf_deterministic(bytes.data(), bytes.size(), key);
  sodium_memzero(key, sizeof key);
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  constexpr double kUnit = 1.0 / 9007199254740992.0;  // 2^-53
  for (std::size_t p = 0; p < pairs; ++p) {
    const double u1 =
        static_cast<double>((p2b::server::wire::get_u64(&bytes[16 * p]) >> 11) + 1) * kUnit;
    const double u2 =
        static_cast<double>(p2b::server::wire::get_u64(&bytes[16 * p + 8]) >> 11) * kUnit;
    const double r = std::sqrt(-2.0 * std::log(u1));
    out[2 * p] = r * std::cos(kTwoPi * u2);
    if (2 * p + 1 < d) out[2 * p + 1] = r * std::sin(kTwoPi * u2);
  }
  sodium_memzero(bytes.data(), bytes.size());
}

}  // namespace

PartitionCheck check_partition(const Partition& partition, uint32_t d) {
  if (partition.empty()) return PartitionCheck::empty;
  if (d < 2 || d > kMaxMaskDim || partition.size() > d) return PartitionCheck::too_large;
  uint64_t sum = 0;
  for (const uint32_t dj : partition) {
    if (dj == 0) return PartitionCheck::zero_block;
    sum += dj;
  }
  return sum == d ? PartitionCheck::ok : PartitionCheck::sum_mismatch;
}

uint32_t column_offset(const Partition& partition, uint32_t j) {
  uint32_t off = 0;
  for (uint32_t i = 0; i < j && i < partition.size(); ++i) off += partition[i];
  return off;
}

double orthogonality_error(const double* q, uint32_t d, uint32_t n) {
  const ConstMat m(q, d, n);
  if (!m.allFinite()) return std::numeric_limits<double>::infinity();
  const Eigen::MatrixXd gram = m.transpose() * m;
  return (gram - Eigen::MatrixXd::Identity(n, n)).cwiseAbs().maxCoeff();
}

double orthogonality_tolerance(uint32_t d) {
  return 1e-12 * static_cast<double>(d);
}

MaskStatus check_mask(const Mask& mask) {
  const uint32_t d = mask.d;
  if (d < 2 || d > kMaxMaskDim || mask.q.size() != static_cast<std::size_t>(d) * d) {
    return MaskStatus::bad_dimension;
  }
  const ConstMat q(mask.q.data(), d, d);
  if (!q.allFinite()) return MaskStatus::non_finite;
  if (!(orthogonality_error(mask.q.data(), d, d) <= orthogonality_tolerance(d))) {
    return MaskStatus::not_orthogonal;
  }
  for (Eigen::Index c = 0; c < q.cols(); ++c) {
    if (q.col(c).cwiseAbs().maxCoeff() >= 1.0 - 1e-9) return MaskStatus::trivial;
  }
  return MaskStatus::ok;
}

MaskStatus draw_mask(const uint8_t seed[kMaskSeedBytes], uint32_t d, uint64_t epoch, Mask* out) {
  *out = Mask{};
  if (seed == nullptr || d < 2 || d > kMaxMaskDim) return MaskStatus::bad_dimension;
  if (sodium_init() < 0) return MaskStatus::bad_dimension;
  const auto n = static_cast<Eigen::Index>(d);
  Eigen::MatrixXd g(n, n);
  for (uint32_t c = 0; c < d; ++c) gaussian_column(seed, c, d, g.col(c).data());
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(g);
  Mask m;
  m.d = d;
  m.epoch = epoch;
  m.q.resize(static_cast<std::size_t>(d) * d);
  Eigen::Map<Eigen::MatrixXd> q(m.q.data(), n, n);
  q = qr.householderQ() * Eigen::MatrixXd::Identity(n, n);
  // Without the fix the distribution depends on the QR's sign convention and
  // is not Haar.
  for (Eigen::Index c = 0; c < n; ++c) {
    if (qr.matrixQR()(c, c) < 0) q.col(c) = -q.col(c);
  }
  g.setZero();  // it determines Q
  derive(seed, kIdDomain, sizeof kIdDomain - 1, d, m.mask_id, sizeof m.mask_id);
  const MaskStatus st = check_mask(m);
  if (st == MaskStatus::ok) *out = std::move(m);
  return st;
}

bool block(const Mask& mask, const Partition& partition, uint32_t j, MaskBlock* out) {
  if (check_partition(partition, mask.d) != PartitionCheck::ok || j >= partition.size() ||
      mask.q.size() != static_cast<std::size_t>(mask.d) * mask.d) {
    return false;
  }
  MaskBlock b;
  b.d = mask.d;
  b.party_index = j;
  b.partition = partition;
  b.col_offset = column_offset(partition, j);
  b.d_j = partition[j];
  // Column-major: the block's columns are one contiguous run.
  const auto first = mask.q.begin() + static_cast<std::ptrdiff_t>(b.col_offset) * mask.d;
  b.q.assign(first, first + static_cast<std::ptrdiff_t>(b.d_j) * mask.d);
  std::memcpy(b.mask_id, mask.mask_id, kMaskIdBytes);
  b.epoch = mask.epoch;
  *out = std::move(b);
  return true;
}

}  // namespace p2b::vfl
