// The O3M privacy mask (Cao et al., KDD'23): one Haar-random orthogonal Q
// drawn by the privacy mask generator (PMG) and split by columns, party j
// getting the d x d_j block Q^j. Server code: it allocates, never throws
// across its API, and never links into the device core.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace p2b::vfl {

constexpr uint32_t kMaxMaskDim = 4096;
constexpr std::size_t kMaskSeedBytes = 32;
constexpr std::size_t kMaskIdBytes = 16;

// Block sizes d_j of the parties in party order; party 0 is the active party.
using Partition = std::vector<uint32_t>;

enum class PartitionCheck { ok, empty, zero_block, sum_mismatch, too_large };

// ok when every d_j >= 1 and they sum to d, with 2 <= d <= kMaxMaskDim.
PartitionCheck check_partition(const Partition& partition, uint32_t d);

// First column of party j's block: the sum of the d_i before it.
uint32_t column_offset(const Partition& partition, uint32_t j);

struct Mask {
  uint32_t d = 0;
  std::vector<double> q;  // d x d, column-major
  uint8_t mask_id[kMaskIdBytes] = {};
  uint64_t epoch = 0;
};

// What one party holds: its column block and where it sits.
struct MaskBlock {
  uint32_t d = 0;
  uint32_t party_index = 0;
  Partition partition;
  uint32_t col_offset = 0;
  uint32_t d_j = 0;
  std::vector<double> q;  // d x d_j, column-major
  uint8_t mask_id[kMaskIdBytes] = {};
  uint64_t epoch = 0;
};

enum class MaskStatus { ok, bad_dimension, non_finite, not_orthogonal, trivial };

// max |Q^T Q - I| over the n columns of a d x n column-major matrix;
// infinity if any entry is not finite.
double orthogonality_error(const double* q, uint32_t d, uint32_t n);

// The tolerance every check of Q or Q^j uses: 1e-12 * d.
double orthogonality_tolerance(uint32_t d);

// Refuses a Q that is not orthogonal to orthogonality_tolerance(d), and one
// with a column within 1e-9 of some +-e_k, the identity among them: the
// feature of that column would then reach the active party in clear.
MaskStatus check_mask(const Mask& mask);

// Haar-distributed Q from a 32-byte seed: Householder QR of a standard
// Gaussian matrix, columns flipped by sign(diag R) (Mezzadri 2007). The same
// seed and d give the same Q bit for bit; mask_id is derived from them and
// reveals nothing about the seed. Production seeds come from randombytes_buf
// and stay with the PMG. `out` is left empty unless the result is ok.
MaskStatus draw_mask(const uint8_t seed[kMaskSeedBytes], uint32_t d, uint64_t epoch, Mask* out);

// Party j's block Q^j, with the mask's id and epoch. False when the partition
// does not fit the mask or j is out of range.
bool block(const Mask& mask, const Partition& partition, uint32_t j, MaskBlock* out);

}  // namespace p2b::vfl
