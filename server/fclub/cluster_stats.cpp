#include "fclub/cluster_stats.hpp"

#include <cmath>

namespace p2b::fclub {

Stats Stats::zero(uint32_t dim) {
  Stats s;
  s.gram = Eigen::MatrixXd::Zero(dim, dim);
  s.moment = Eigen::VectorXd::Zero(dim);
  return s;
}

void Stats::add(const Stats& o) {
  gram += o.gram;
  moment += o.moment;
  count += o.count;
}

void Stats::subtract(const Stats& o) {
  gram -= o.gram;
  moment -= o.moment;
  count -= o.count;
}

void Stats::add_interaction(const Eigen::VectorXd& x, double y) {
  gram.noalias() += x * x.transpose();
  moment += y * x;
  ++count;
}

void Stats::clear() {
  gram.setZero();
  moment.setZero();
  count = 0;
}

double confidence_radius(uint64_t n) {
  const double m = static_cast<double>(n);
  return std::sqrt((1.0 + std::log1p(m)) / (1.0 + m));
}

Eigen::VectorXd ridge_estimate(const Stats& s, double ridge) {
  const auto d = s.gram.rows();
  const Eigen::MatrixXd m = s.gram + ridge * Eigen::MatrixXd::Identity(d, d);
  return m.ldlt().solve(s.moment);
}

bool log_det(const Eigen::MatrixXd& gram, double ridge, double* out) {
  const auto d = gram.rows();
  const Eigen::LLT<Eigen::MatrixXd> llt(gram + ridge * Eigen::MatrixXd::Identity(d, d));
  if (llt.info() != Eigen::Success) return false;
  double sum = 0.0;
  for (Eigen::Index i = 0; i < d; ++i) sum += std::log(llt.matrixL()(i, i));
  *out = 2.0 * sum;
  return std::isfinite(*out);
}

}  // namespace p2b::fclub
