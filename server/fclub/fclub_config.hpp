// The knobs of federated clustering of bandits (FCLUB, Liu et al. UAI'22):
// one struct that the local and global servers, the simulator and the
// services share, so that every party of a deployment agrees on them.
#pragma once

#include <cstdint>

namespace p2b::fclub {

// Who is clustered with whom. `detect` is the paper's algorithm; the other
// two are its baselines: one cluster for everybody (Homo, Homo-DC) and one
// cluster per local server that never merges (clustering off).
enum class Clustering : uint32_t { detect = 0, single_global = 1, per_server = 2 };

struct FclubConfig {
  uint32_t dim = 10;
  uint32_t n_servers = 5;
  Clustering clustering = Clustering::detect;

  // Recommendation: M = ridge I + S, theta = M^-1 u, score = x.theta +
  // beta * sqrt(x^T M^-1 x), beta = beta_scale * sqrt(2 ln(1/beta_delta)
  // + d ln(1 + n / (ridge d))) (OFUL's radius without the norm term).
  double ridge = 1.0;
  double beta_scale = 0.25;
  double beta_delta = 0.1;

  // Eq. 3 (users split) and Eq. 4 (clusters merge): distance of the ridge
  // estimates against alpha * (f(n1) + f(n2)), f(n) = sqrt((1 + ln(1 + n)) / (1 + n)).
  double split_alpha = 1.5;
  double merge_alpha = 2.0;
  double estimate_ridge = 1.0;  // gamma in theta_u = (gamma I + V_u)^-1 b_u

  // Eq. 5 and Eq. 6: upload when det(ridge I + S + S_up) / det(ridge I + S)
  // reaches upload_ratio, download when det(ridge I + S_g) / det(ridge I +
  // S_c) reaches download_ratio. 1 (or less) communicates every round: the
  // synchronous FCLUB.
  double upload_ratio = 1.01;
  double download_ratio = 1.01;

  // Cluster-level DP. Off: uploads carry raw sums (FCLUB-DC). On: every
  // upload carries tree-mechanism Gaussian noise sized so that one
  // interaction costs at most (epsilon, delta) over the whole run
  // (cdp_ledger.hpp), and a cluster whose budget is spent stops sharing.
  // epsilon = +infinity runs the private code path with zero noise (the
  // right end of a privacy/regret curve), and spends an infinite epsilon.
  bool private_uploads = false;
  double epsilon = 1.0;
  double delta = 0.1;
  uint32_t max_uploads_per_phase = 256;  // tree leaves; more uploads wait for the next phase
  uint32_t max_phases = 17;              // phase-start re-releases a record can be in
  double max_item_norm = 1.0;            // ||x|| bound the sensitivity assumes
  double max_reward = 1.0;               // |y| bound
  // The private merge test (Eq. 4 on noisy statistics): ||theta|| <= this
  // bound (the paper's assumption), and the noise's norms hold with
  // probability 1 - merge_noise_delta per upload.
  double max_theta_norm = 1.0;
  double merge_noise_delta = 0.01;
  // The least distance between two clusters' theta the deployment assumes
  // (the analysis's gamma): noise bounds up to half of it may join a pair.
  // 0 assumes nothing (noise must then stay below the sampling radius).
  double min_theta_gap = 0.0;
};

// The private upload trigger: the arriving user's cluster uploads on every
// this-many-th interaction its local server sees in `phase` (a clock of
// arrivals, never of rewards or items), sized so that a server's ticks in a
// phase number about max_uploads_per_phase.
uint64_t private_upload_interval(const FclubConfig& cfg, uint32_t phase);

// Checks the config; returns a reason or nullptr.
const char* check_config(const FclubConfig& cfg);

// Whether an interaction lies within the bounds the privatizer's
// sensitivity assumes: ||x|| <= max_item_norm and 0 <= y <= max_reward.
bool within_sensitivity(const FclubConfig& cfg, const double* x, uint32_t dim, double y);

}  // namespace p2b::fclub
