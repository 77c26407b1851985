#include "fclub/tree_privatizer.hpp"

#include <sodium.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "dp/tree_noise.hpp"

namespace p2b::fclub {

namespace {
constexpr char kTreeLabel[] = "p2b fclub tree v1";
}

TreeSeed derive_tree_seed(const TreeSeed& master, uint32_t phase, uint64_t cluster_key) {
  uint8_t msg[sizeof kTreeLabel + 12];
  std::memcpy(msg, kTreeLabel, sizeof kTreeLabel);
  uint8_t* p = msg + sizeof kTreeLabel;
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(phase >> (8 * i));
  for (int i = 0; i < 8; ++i) p[4 + i] = static_cast<uint8_t>(cluster_key >> (8 * i));
  TreeSeed out{};
  crypto_generichash(out.data(), out.size(), msg, sizeof msg, master.data(), master.size());
  return out;
}

uint64_t noisy_count(uint64_t count, double noise) {
  const double v = std::round(static_cast<double>(count) + noise);
  return v > 0.0 ? static_cast<uint64_t>(v) : 0;
}

TreePrivatizer::TreePrivatizer(uint32_t dim, double sigma, const TreeSeed& seed)
    : dim_(dim), sigma_(sigma), seed_(seed) {}

uint32_t TreePrivatizer::prefix_nodes(uint64_t k) {
  return static_cast<uint32_t>(__builtin_popcountll(k));
}

void TreePrivatizer::node_noise(uint32_t level, uint64_t index, Eigen::MatrixXd* gram_noise,
                                Eigen::VectorXd* moment_noise) const {
  double count_noise = 0.0;
  node_entries(level, index, gram_noise, moment_noise, &count_noise);
}

void TreePrivatizer::node_entries(uint32_t level, uint64_t index, Eigen::MatrixXd* gram_noise,
                                  Eigen::VectorXd* moment_noise, double* count_noise) const {
  const uint32_t n = dim_ + 1;
  std::vector<double> z(static_cast<std::size_t>(n) * (n + 1) / 2);
  dp::NoiseSeed seed{};
  std::memcpy(seed.data(), seed_.data(), seed.size());
  dp::node_normals(seed, {level, index}, z.data(), z.size());
  sodium_memzero(seed.data(), seed.size());
  gram_noise->setZero(dim_, dim_);
  moment_noise->setZero(dim_);
  std::size_t at = 0;
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t j = i; j < n; ++j, ++at) {
      const double v = sigma_ * z[at];
      if (j < dim_) {
        (*gram_noise)(i, j) = v;
        (*gram_noise)(j, i) = v;
      } else if (i < dim_) {
        (*moment_noise)(i) = v;
      } else {
        *count_noise = v;  // (d, d): the count's slot (y^2 is never released)
      }
    }
  }
  sodium_memzero(z.data(), z.size() * sizeof(double));
}

void TreePrivatizer::prefix_noise(uint64_t k, Eigen::MatrixXd* gram_noise,
                                  Eigen::VectorXd* moment_noise) const {
  gram_noise->setZero(dim_, dim_);
  moment_noise->setZero(dim_);
  if (k == 0) return;
  Eigen::MatrixXd g;
  Eigen::VectorXd m;
  for (const dp::TreeNode& node : dp::release_nodes(k)) {
    node_noise(node.level, node.index, &g, &m);
    *gram_noise += g;
    *moment_noise += m;
  }
}

double TreePrivatizer::prefix_count_noise(uint64_t k) const {
  double sum = 0.0;
  if (k == 0) return sum;
  Eigen::MatrixXd g;
  Eigen::VectorXd m;
  for (const dp::TreeNode& node : dp::release_nodes(k)) {
    double c = 0.0;
    node_entries(node.level, node.index, &g, &m, &c);
    sum += c;
  }
  return sum;
}

}  // namespace p2b::fclub
