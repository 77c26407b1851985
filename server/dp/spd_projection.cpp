#include "dp/spd_projection.hpp"

#include <Eigen/Dense>

namespace p2b::dp {

bool raise_eigenvalues(double* a, uint32_t dim, double floor) {
  const auto n = static_cast<Eigen::Index>(dim);
  Eigen::Map<Eigen::MatrixXd> m(a, n, n);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(m);
  Eigen::VectorXd values = eig.eigenvalues();
  // A failed decomposition (non-finite input) rebuilds from floor * I.
  if (eig.info() != Eigen::Success) {
    m = Eigen::MatrixXd::Identity(n, n) * floor;
    return true;
  }
  if (values.minCoeff() >= floor) return false;
  values = values.cwiseMax(floor);
  const Eigen::MatrixXd rebuilt =
      eig.eigenvectors() * values.asDiagonal() * eig.eigenvectors().transpose();
  m = (rebuilt + rebuilt.transpose()) * 0.5;
  return true;
}

}  // namespace p2b::dp
