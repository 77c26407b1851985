#include "vfl/party_mask.hpp"

#include <Eigen/Dense>

namespace p2b::vfl {

bool mask_block(const MaskBlock& block, const double* x_j, uint32_t k_items, double* out) {
  const auto d = static_cast<Eigen::Index>(block.d);
  const auto d_j = static_cast<Eigen::Index>(block.d_j);
  if (x_j == nullptr || out == nullptr || d == 0 || d_j == 0 ||
      block.q.size() != static_cast<std::size_t>(d * d_j)) {
    return false;
  }
  // Row-major K' x n is column-major n x K': one product, no copies.
  const Eigen::Map<const Eigen::MatrixXd> q(block.q.data(), d, d_j);
  const Eigen::Map<const Eigen::MatrixXd> x(x_j, d_j, k_items);
  Eigen::Map<Eigen::MatrixXd> y(out, d, k_items);
  y.noalias() = q * x;
  return true;
}

}  // namespace p2b::vfl
