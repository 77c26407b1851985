// The P-FCB-style posting's length, sized from the real P-FCB wire
// (proto/p2b_pfcb.proto, docs/formats.md "P-FCB posting").
//
// A P-FCB Share carries two packed arrays of m sfixed32 (w~ and y~). Here
// the first holds the upper triangles of the per-arm A increments and the
// second the per-arm b increments, as fixed-point sfixed32 (the simulation
// keeps doubles; the wire would carry them scaled and snapped, which is
// post-processing). The Share's fixed header is the library's own length at
// m = 1 minus its two one-value arrays; the Posting and the frame around it
// follow the proto: Posting = format, two 16-byte fingerprints, release, a
// 24-byte nonce and the AEAD-sealed Share (+16); frame = "P2BX" | varint
// length | Posting | Ed25519 signature (64).
#include <cstddef>

#include "compare_sim/protocols.hpp"
#include "p2b/cmab.hpp"

namespace p2b::compare_sim {

namespace {

std::size_t varint_bytes(std::size_t v) {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// A packed repeated field of n 4-byte values: tag, length, payload.
std::size_t packed_fixed32(std::size_t n) {
  return 1 + varint_bytes(4 * n) + 4 * n;
}

constexpr std::size_t kAeadTag = 16;
constexpr std::size_t kMagic = 4;
constexpr std::size_t kSignature = 64;
// format (fixed32), consortium_fp (16), sender_fp (16), release (fixed32),
// nonce (24): tag + value, with a one-byte length for the bytes fields.
constexpr std::size_t kPostingFixed = (1 + 4) + (2 + 16) + (2 + 16) + (1 + 4) + (2 + 24);

}  // namespace

std::size_t pfcb_posting_bytes(std::size_t values_a, std::size_t values_b) {
  const std::size_t header = cmab_share_encoded_size(1) - 2 * packed_fixed32(1);
  const std::size_t share = header + packed_fixed32(values_a) + packed_fixed32(values_b);
  const std::size_t sealed = share + kAeadTag;
  const std::size_t posting = kPostingFixed + 1 + varint_bytes(sealed) + sealed;
  return kMagic + varint_bytes(posting) + posting + kSignature;
}

}  // namespace p2b::compare_sim
