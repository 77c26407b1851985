// Eq. 4, the test that joins two clusters whose estimates are close, on raw
// statistics (a local server merging its own clusters, or the global server
// without privacy) and on privatized ones (the global server of a private
// deployment). The privatized test is made sound for the noise: each
// estimate comes with a high-probability bound on how far the noise moved
// it, the distance may exceed the sampling radius by those bounds (so noise
// alone never keeps apart what the raw test would join), and a pair joins
// only when the noise bounds are small (so estimates that are mostly noise,
// which would all look alike, join no one).
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <vector>

#include "fclub/cluster_stats.hpp"
#include "fclub/fclub_config.hpp"

namespace p2b::fclub {

// What Eq. 4 needs of one cluster.
struct MergeView {
  Eigen::VectorXd theta;  // the ridge estimate
  double radius = 0.0;    // f(n) of its (noisy) count
  double noise = 0.0;     // bound on ||theta - the raw ridge estimate||; 0 when raw
};

// The noise one release of a tree node puts on a cluster's statistics:
// per-entry deviation sigma (0: raw statistics), and the probability that
// the bound below may fail.
struct NoiseNorms {
  double sigma = 0.0;
  double fail = 0.01;
};
NoiseNorms noise_norms(uint32_t dim, double sigma, uint32_t nodes, double fail);

// The view of statistics S~ = S + H, u~ = u + h. The estimate is
// (gamma I + S~)^-1 u~ and its distance to the raw ridge estimate t is
// ||(gamma I + S~)^-1 (h - H t)||: h - H t is Gaussian (H is independent of
// the data) with covariance at most sigma^2 (1 + 2 ||t||^2) I, so with
// ||t|| <= max_theta_norm the distance is at most
// sigma sqrt(1 + 2 max_theta_norm^2) (sqrt(d) + sqrt(2 ln(1/fail))) / lambda_min
// but with probability `fail`. Not positive definite, or no count: no bound.
MergeView merge_view(const Stats& s, const FclubConfig& cfg, const NoiseNorms& norms);

// The merge decision for two views: Eq. 4 at alpha, widened by the noise
// bounds, for pairs whose noise bounds sum to at most max(the sampling
// radius, theta_gap / 2). theta_gap is the least distance between two
// clusters' theta that the deployment assumes (the analysis's gamma); 0
// assumes nothing, and noise must then be below the sampling radius.
bool merge_close(const MergeView& a, const MergeView& b, double alpha, double theta_gap);

// Connected components of the graph on 0..n-1 whose edges are the pairs
// `linked` accepts, each listing its vertices, numbered by their smallest
// vertex and in breadth-first order: the one way both servers turn pairwise
// merge decisions into clusters.
std::vector<std::vector<uint32_t>> connected_components(
    uint32_t n, const std::function<bool(uint32_t, uint32_t)>& linked);

// Connected components of merge_close over `views`.
std::vector<std::vector<uint32_t>> merge_components(const std::vector<MergeView>& views,
                                                    double alpha, double theta_gap);

}  // namespace p2b::fclub
