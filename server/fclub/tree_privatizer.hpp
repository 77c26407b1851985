// The binary-tree Gaussian mechanism (Chan, Shi and Song 2011) as FCLUB's
// Algorithm 5 uses it: the k-th upload of a local cluster within a phase
// carries the noise of the prefix 1..k, the sum of the nodes of k's binary
// decomposition, so the statistics the global server has summed after k
// uploads hold O(log k) noise nodes, not k.
//
// A node is a symmetric (d+1) x (d+1) Gaussian matrix: its upper triangle
// (diagonal included) is iid N(0, sigma^2) and mirrored. H is its top-left
// d x d block (noise on the Gram matrix), h the first d entries of its last
// column (noise on the moment); its last diagonal entry, which would be
// noise on y^2 (never used), is the noise on the interaction count, so a
// release of (S, u, n) costs one node, not two. Nodes are regenerated from a secret tree
// seed, never stored: the same node twice is the same noise, which a
// restarted server must not redraw (fresh draws would average away).
#pragma once

#include <Eigen/Dense>
#include <array>
#include <cstdint>

namespace p2b::fclub {

using TreeSeed = std::array<uint8_t, 32>;

// The seed of one tree: one local cluster's uploads in one phase. `master`
// is the local server's secret noise key; `cluster_key` names the cluster.
TreeSeed derive_tree_seed(const TreeSeed& master, uint32_t phase, uint64_t cluster_key);

// A count as released: the noisy value rounded and floored at zero
// (post-processing, so it costs nothing).
uint64_t noisy_count(uint64_t count, double noise);

class TreePrivatizer {
 public:
  TreePrivatizer(uint32_t dim, double sigma, const TreeSeed& seed);

  // The noise of prefix k (k >= 1): the sum of the nodes covering 1..k;
  // k = 0 gives zeros. Deterministic in (seed, k).
  void prefix_noise(uint64_t k, Eigen::MatrixXd* gram_noise, Eigen::VectorXd* moment_noise) const;
  // How many nodes prefix k sums: popcount(k).
  static uint32_t prefix_nodes(uint64_t k);
  // One node (level, index) alone, for tests of the decomposition.
  void node_noise(uint32_t level, uint64_t index, Eigen::MatrixXd* gram_noise,
                  Eigen::VectorXd* moment_noise) const;
  // The count noise of prefix k: the sum of the same nodes' (d, d) entries.
  double prefix_count_noise(uint64_t k) const;
  double sigma() const { return sigma_; }

 private:
  // Every entry of one node: the Gram and moment blocks, and the count.
  void node_entries(uint32_t level, uint64_t index, Eigen::MatrixXd* gram_noise,
                    Eigen::VectorXd* moment_noise, double* count_noise) const;
  uint32_t dim_;
  double sigma_;
  TreeSeed seed_;
};

}  // namespace p2b::fclub
