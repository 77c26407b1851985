#include "fclub_sim/learner.hpp"

#include <cmath>

namespace p2b::fclub_sim {

double reference_beta(double a, uint32_t dim, uint64_t n, double l) {
  const double d = dim;
  const double inner =
      2.0 * std::log(2.0 / a) + d * std::log(3.0 + static_cast<double>(n) * l * l / d);
  return 0.5 * std::sqrt(std::max(inner, 0.0));
}

double default_beta(double scale, double delta, double ridge, uint32_t dim, uint64_t n) {
  const double d = dim;
  return scale * std::sqrt(2.0 * std::log(1.0 / delta) +
                           d * std::log1p(static_cast<double>(n) / (ridge * d)));
}

uint32_t linucb_pick(const Eigen::MatrixXd& gram, const Eigen::VectorXd& moment, uint64_t n,
                     const Scoring& s, const Eigen::MatrixXd& items) {
  const auto d = gram.rows();
  const Eigen::LLT<Eigen::MatrixXd> llt(gram + s.ridge * Eigen::MatrixXd::Identity(d, d));
  const Eigen::VectorXd theta = llt.solve(moment);
  const double b = s.beta(n);
  uint32_t best = 0;
  double best_score = -INFINITY;
  Eigen::VectorXd z(d);
  for (Eigen::Index k = 0; k < items.rows(); ++k) {
    z = items.row(k).transpose();
    const double mean = z.dot(theta);
    llt.matrixL().solveInPlace(z);
    const double w2 = z.squaredNorm();
    const double score = mean + b * (s.sqrt_width ? std::sqrt(w2) : w2);
    if (score > best_score) {
      best_score = score;
      best = static_cast<uint32_t>(k);
    }
  }
  return best;
}

}  // namespace p2b::fclub_sim
