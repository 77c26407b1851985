// Sufficient statistics of a linear bandit, as FCLUB moves them between
// users, local clusters and global clusters: the Gram matrix S = sum x x^T,
// the moment u = sum y x and the interaction count n. Sums merge by addition.
#pragma once

#include <Eigen/Dense>
#include <cstdint>

namespace p2b::fclub {

struct Stats {
  Eigen::MatrixXd gram;
  Eigen::VectorXd moment;
  uint64_t count = 0;

  static Stats zero(uint32_t dim);
  void add(const Stats& o);
  void subtract(const Stats& o);
  void add_interaction(const Eigen::VectorXd& x, double y);
  void clear();
};

// f(n) of Eq. 3 and 4: how far apart two estimates from n1 and n2
// interactions may be by chance.
double confidence_radius(uint64_t n);

// (ridge I + gram)^-1 moment.
Eigen::VectorXd ridge_estimate(const Stats& s, double ridge);

// ln det(ridge I + gram); false when that matrix is not positive definite
// (noisy statistics can make it so).
bool log_det(const Eigen::MatrixXd& gram, double ridge, double* out);

}  // namespace p2b::fclub
