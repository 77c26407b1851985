#include "fclub/merge_test.hpp"

#include <algorithm>
#include <cmath>

namespace p2b::fclub {

NoiseNorms noise_norms(uint32_t /*dim*/, double sigma, uint32_t nodes, double fail) {
  // A sum of `nodes` independent nodes: deviation sigma sqrt(nodes).
  return {sigma * std::sqrt(static_cast<double>(nodes)), fail};
}

MergeView merge_view(const Stats& s, const FclubConfig& cfg, const NoiseNorms& norms) {
  MergeView v;
  v.radius = confidence_radius(s.count);
  if (norms.sigma == 0.0) {
    v.theta = ridge_estimate(s, cfg.estimate_ridge);
    return v;
  }
  const auto d = s.gram.rows();
  const Eigen::MatrixXd m = s.gram + cfg.estimate_ridge * Eigen::MatrixXd::Identity(d, d);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(m);
  const double lambda = eig.eigenvalues()(0);
  if (s.count == 0 || !(lambda > 0.0)) {
    // No data, or noise as large as the data: nothing to compare.
    v.theta = Eigen::VectorXd::Zero(d);
    v.noise = INFINITY;
    return v;
  }
  v.theta = eig.eigenvectors() *
            (eig.eigenvectors().transpose() * s.moment).cwiseQuotient(eig.eigenvalues());
  const double t = cfg.max_theta_norm;
  const double spread =
      std::sqrt(static_cast<double>(d)) + std::sqrt(2.0 * std::log(1.0 / norms.fail));
  v.noise = norms.sigma * std::sqrt(1.0 + 2.0 * t * t) * spread / lambda;
  return v;
}

bool merge_close(const MergeView& a, const MergeView& b, double alpha, double theta_gap) {
  const double radius = alpha * (a.radius + b.radius);
  const double noise = a.noise + b.noise;
  if (!(noise <= std::max(radius, theta_gap / 2.0))) return false;  // mostly noise
  return (a.theta - b.theta).norm() < radius + noise;
}

std::vector<std::vector<uint32_t>> connected_components(
    uint32_t n, const std::function<bool(uint32_t, uint32_t)>& linked) {
  std::vector<std::vector<uint32_t>> parts;
  std::vector<bool> seen(n, false);
  for (uint32_t s = 0; s < n; ++s) {
    if (seen[s]) continue;
    std::vector<uint32_t> part{s};
    seen[s] = true;
    for (std::size_t at = 0; at < part.size(); ++at) {
      for (uint32_t v = 0; v < n; ++v) {
        if (!seen[v] && linked(part[at], v)) {
          seen[v] = true;
          part.push_back(v);
        }
      }
    }
    parts.push_back(std::move(part));
  }
  return parts;
}

std::vector<std::vector<uint32_t>> merge_components(const std::vector<MergeView>& views,
                                                    double alpha, double theta_gap) {
  return connected_components(static_cast<uint32_t>(views.size()), [&](uint32_t a, uint32_t b) {
    return merge_close(views[a], views[b], alpha, theta_gap);
  });
}

}  // namespace p2b::fclub
