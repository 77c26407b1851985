#include "central_dp.hpp"

#include <sodium.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "dp/spd_projection.hpp"
#include "dp/zcdp.hpp"

namespace p2b::analyzer {

double NoisyRelease::total_count() const {
  double n = 0.0;
  for (const double c : counts) n += c;
  return n;
}

CentralDp::CentralDp(const CentralDpConfig& config, const dp::NoiseSeed& seed)
    : config_(config), seed_(seed), levels_(0), sigma_(0.0) {
  if (!(config.epsilon > 0.0 && std::isfinite(config.epsilon))) {
    throw std::invalid_argument("central DP: epsilon must be > 0");
  }
  if (!(config.delta > 0.0 && config.delta < 1.0)) {
    throw std::invalid_argument("central DP: delta must be in (0, 1)");
  }
  if (config.horizon == 0) throw std::invalid_argument("central DP: horizon must be >= 1");
  levels_ = dp::tree_levels(config.horizon);
  sigma_ = dp::gaussian_sigma(config.epsilon, config.delta, kReportSensitivity, levels_);
}

CentralDp::~CentralDp() {
  sodium_memzero(seed_.data(), seed_.size());
}

double CentralDp::shift(uint32_t dim, uint32_t nodes) const {
  return sigma_ * std::sqrt(static_cast<double>(nodes)) *
         (2.0 * std::sqrt(static_cast<double>(dim)) +
          2.0 * std::sqrt(std::log(1.0 / kShiftFailure)));
}

void CentralDp::clip_report(double* x, uint32_t dim, double* reward) {
  double norm2 = 0.0;
  for (uint32_t i = 0; i < dim; ++i) norm2 += x[i] * x[i];
  if (norm2 > 1.0) {
    const double scale = 1.0 / std::sqrt(norm2);
    for (uint32_t i = 0; i < dim; ++i) x[i] *= scale;
  }
  *reward = *reward >= 0.0 ? std::min(*reward, 1.0) : 0.0;
}

NoisyRelease CentralDp::release(const Statistics& exact, uint64_t t, double lambda) const {
  if (t == 0 || t > config_.horizon) {
    throw std::out_of_range("central DP: release beyond the horizon");
  }
  const uint32_t d = exact.dim();
  const uint32_t arms = exact.n_actions();
  const std::size_t tri = static_cast<std::size_t>(d) * (d + 1) / 2;
  const std::size_t block = tri + d + 1;  // one arm's coordinates: upper(G), s, n
  const std::size_t n = block * arms;
  std::vector<double> noise(n, 0.0), node(n);
  const std::vector<dp::TreeNode> nodes = dp::release_nodes(t);
  for (const dp::TreeNode& tn : nodes) {
    dp::node_normals(seed_, tn, node.data(), n);
    for (std::size_t i = 0; i < n; ++i) noise[i] += node[i];
  }

  NoisyRelease out;
  out.nodes = static_cast<uint32_t>(nodes.size());
  out.shift = shift(d, out.nodes);
  exact.model_arrays(lambda + out.shift, &out.a, &out.b);
  out.counts.resize(arms);
  for (uint32_t arm = 0; arm < arms; ++arm) {
    double* a = out.a.data() + static_cast<std::size_t>(arm) * d * d;
    double* b = out.b.data() + static_cast<std::size_t>(arm) * d;
    const double* z = noise.data() + arm * block;
    std::size_t k = 0;
    for (uint32_t j = 0; j < d; ++j) {
      for (uint32_t i = 0; i <= j; ++i, ++k) {
        const double e = sigma_ * z[k];
        a[static_cast<std::size_t>(j) * d + i] += e;
        if (i != j) a[static_cast<std::size_t>(i) * d + j] += e;  // mirrored: A stays symmetric
      }
    }
    for (uint32_t i = 0; i < d; ++i) b[i] += sigma_ * z[tri + i];
    out.counts[arm] = static_cast<double>(exact.count(arm)) + sigma_ * z[tri + d];
    dp::raise_eigenvalues(a, d, lambda);
  }
  sodium_memzero(noise.data(), noise.size() * sizeof(double));
  sodium_memzero(node.data(), node.size() * sizeof(double));
  return out;
}

dp::NoiseSeed new_noise_seed() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to start");
  dp::NoiseSeed seed;
  randombytes_buf(seed.data(), seed.size());
  return seed;
}

}  // namespace p2b::analyzer
