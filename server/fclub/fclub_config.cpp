#include "fclub/fclub_config.hpp"

#include <algorithm>
#include <cmath>

namespace p2b::fclub {

const char* check_config(const FclubConfig& c) {
  if (c.dim == 0 || c.dim > 1024) return "dim must be in 1..1024";
  if (c.n_servers == 0) return "at least one local server";
  if (!(c.ridge > 0.0) || !(c.estimate_ridge > 0.0)) return "ridges must be > 0";
  if (!(c.beta_scale >= 0.0) || !std::isfinite(c.beta_scale)) return "beta_scale must be >= 0";
  if (!(c.beta_delta > 0.0 && c.beta_delta < 1.0)) return "beta_delta must be in (0, 1)";
  if (!(c.split_alpha > 0.0) || !(c.merge_alpha > 0.0)) return "alphas must be > 0";
  if (!std::isfinite(c.upload_ratio) || !std::isfinite(c.download_ratio)) {
    return "trigger ratios must be finite";
  }
  if (c.private_uploads) {
    if (!(c.epsilon > 0.0)) return "epsilon must be > 0 (or +infinity)";
    if (!(c.delta > 0.0 && c.delta < 1.0)) return "delta must be in (0, 1)";
    if (c.max_uploads_per_phase == 0 || c.max_phases == 0) return "tree sizes must be >= 1";
    if (!(c.max_item_norm > 0.0) || !(c.max_reward >= 0.0)) return "bad sensitivity bounds";
    if (c.upload_ratio <= 1.0) return "a private deployment needs upload_ratio > 1";
    if (!(c.max_theta_norm > 0.0) || !std::isfinite(c.max_theta_norm)) {
      return "max_theta_norm must be > 0";
    }
    if (!(c.min_theta_gap >= 0.0) || !std::isfinite(c.min_theta_gap)) {
      return "min_theta_gap must be >= 0";
    }
    if (!(c.merge_noise_delta > 0.0 && c.merge_noise_delta < 1.0)) {
      return "merge_noise_delta must be in (0, 1)";
    }
  }
  return nullptr;
}

uint64_t private_upload_interval(const FclubConfig& cfg, uint32_t phase) {
  // Phase s lasts 2^s rounds; a server sees about 2^s / n_servers of them.
  const double per_server = std::ldexp(1.0, static_cast<int>(phase)) / cfg.n_servers;
  const double ticks = cfg.max_uploads_per_phase;
  return static_cast<uint64_t>(std::max(1.0, std::ceil(per_server / ticks)));
}

bool within_sensitivity(const FclubConfig& cfg, const double* x, uint32_t dim, double y) {
  double sq = 0.0;
  for (uint32_t i = 0; i < dim; ++i) sq += x[i] * x[i];
  const double bound = cfg.max_item_norm * cfg.max_item_norm;
  return sq <= bound * (1.0 + 1e-12) && y >= 0.0 && y <= cfg.max_reward;
}

}  // namespace p2b::fclub
