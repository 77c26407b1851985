// The noise of the binary (tree) mechanism for continual release (Chan, Shi
// and Song 2011; Dwork, Naor, Pitassi and Rothblum 2010), as the seed papers
// use it for private bandit statistics.
//
// Batches are numbered 1, 2, ... A node (level l, index j) stands for the
// batches j*2^l + 1 .. (j+1)*2^l. The sum of batches 1..t is the sum of the
// popcount(t) nodes of t's binary expansion, so the release after batch t
// carries the noise of those nodes only, and every batch lies in exactly one
// node per level: with a horizon of T batches, ceil(log2 T) + 1 nodes.
//
// A node's noise is a function of a secret seed and the node alone, so it is
// the same after a restart: redrawing it would hand an observer fresh
// samples of the same sum to average away.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace p2b::dp {

using NoiseSeed = std::array<uint8_t, 32>;

struct TreeNode {
  uint32_t level = 0;
  uint64_t index = 0;
  bool operator==(const TreeNode& o) const { return level == o.level && index == o.index; }
};

// ceil(log2 horizon) + 1: the nodes (one per level) holding any one batch of
// 1..horizon. `horizon` >= 1.
uint32_t tree_levels(uint64_t horizon);

// The nodes whose sum is batches 1..t (t >= 1), highest level first.
std::vector<TreeNode> release_nodes(uint64_t t);

// `n` independent standard normals that depend on (seed, node) only: a
// ChaCha20 stream (libsodium's randombytes_buf_deterministic) keyed by a
// BLAKE2b MAC of the node under the seed, turned normal by Box-Muller.
void node_normals(const NoiseSeed& seed, TreeNode node, double* out, std::size_t n);

}  // namespace p2b::dp
