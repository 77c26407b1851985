// FCLUB (federated clustering of bandits, issue #16): the messages local
// servers and the global server exchange, as plain structs mirroring
// proto/p2b_fclub.proto (package p2b.fclub.v1). Server code: it allocates.
// The wire form and its checks are in fclub_wire.hpp; docs/formats.md,
// "FCLUB upload and download (P2BU, P2BD)".
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace p2b::fclub {

constexpr uint32_t kWireFormat = 1;
constexpr uint32_t kMaxDim = 64;      // as ArmColumn in proto/p2b.proto
constexpr std::size_t kFpBytes = 16;  // BLAKE2b-128 key fingerprints
// The largest count a ClusterStats may carry: 2^53, the last integer a double
// holds exactly, so counts stay exact when summed or used in arithmetic, and
// 2^10 of them still add up without overflowing a u64.
constexpr uint64_t kMaxStatsCount = uint64_t{1} << 53;

// d(d+1)/2: the entries of the upper triangle, diagonal included.
constexpr std::size_t gram_upper_count(uint32_t dim) {
  return static_cast<std::size_t>(dim) * (static_cast<std::size_t>(dim) + 1) / 2;
}
constexpr std::size_t kMaxGramUpper = gram_upper_count(kMaxDim);  // 2080

// Sufficient statistics of one cluster: count interactions, the Gram matrix
// sum x x^T as its upper triangle (row-major: (0,0), (0,1), ..., (0,d-1),
// (1,1), ...) and the moment sum r x.
struct ClusterStats {
  uint32_t dim = 0;
  uint64_t count = 0;
  std::vector<double> gram_upper;  // gram_upper_count(dim)
  std::vector<double> moment;      // dim
};

// Local server -> global server ("P2BU").
struct Upload {
  uint32_t format = kWireFormat;
  uint8_t deployment_fp[kFpBytes] = {};  // fingerprint of the global server's box key
  // Fingerprint of the sender's Ed25519 verify key: written by the sealer from
  // the key it signs with, and filled in by the opener.
  uint8_t signer_fp[kFpBytes] = {};
  uint32_t server_id = 0;
  uint32_t phase = 0;
  uint32_t seq = 0;  // 0: phase-start upload of the whole cluster; k >= 1: k-th increment
  uint32_t local_cluster = 0;
  uint32_t member_count = 0;  // users in the local cluster
  ClusterStats stats;         // seq 0: cumulative; k >= 1: the increment
  double epsilon_spent = 0;   // as the local ledger reports them
  double delta = 0;
};

constexpr uint32_t kDownloadDelta = 0;    // add stats to the synchronized statistics
constexpr uint32_t kDownloadReplace = 1;  // replace them (phase-start renewal)

// Global server -> local server ("P2BD").
struct Download {
  uint32_t format = kWireFormat;
  uint8_t deployment_fp[kFpBytes] = {};
  uint8_t signer_fp[kFpBytes] = {};  // as in Upload: the global server's verify key
  uint32_t server_id = 0;            // the recipient local server
  uint32_t phase = 0;
  uint64_t version = 0;  // strictly increasing per recipient server (the caller checks)
  uint32_t local_cluster = 0;
  uint32_t global_cluster = 0;
  uint32_t kind = kDownloadDelta;
  ClusterStats stats;
};

}  // namespace p2b::fclub
