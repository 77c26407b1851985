// FCLUB's local server (Algorithms 1, 3 and the local half of 2): it sees
// its own users' raw interactions, splits them into local clusters (Eq. 3),
// recommends from each cluster's view, and uploads cluster statistics when
// the determinant-ratio trigger (Eq. 5) fires, privatized by the tree
// mechanism when the deployment is private. A private server uploads on a
// clock of arrivals instead (private_upload_interval), sends counts only
// noised, and merges its own local clusters by Eq. 4 on raw statistics,
// which it is trusted with, before the global server sees them.
#pragma once

#include <Eigen/Dense>
#include <array>
#include <cstdint>
#include <vector>

#include "fclub/cdp_ledger.hpp"
#include "fclub/cluster_stats.hpp"
#include "fclub/fclub_config.hpp"
#include "fclub/messages.hpp"
#include "fclub/tree_privatizer.hpp"

namespace p2b::fclub {

class LocalServer {
 public:
  LocalServer(const FclubConfig& cfg, uint32_t server_id, uint32_t n_users,
              const TreeSeed& noise_key);

  // The item (row of `items`, K x dim) to show local user `user`.
  uint32_t recommend(uint32_t user, const Eigen::MatrixXd& items);
  // Learns the user's interaction. True, with `up` filled, when the upload
  // trigger fires and the budget allows. In a private deployment an
  // interaction outside the sensitivity bounds (within_sensitivity) is
  // clipped first (x scaled to max_item_norm, y clamped to [0, max_reward]):
  // the noise is sized for those bounds, so nothing may exceed them. Callers
  // that can refuse such input should (p2b-fclub-local answers 400).
  bool observe(uint32_t user, const Eigen::VectorXd& x, double y, StatsUpload* up);
  // Phase start: split the user graph, rebuild the local clusters from the
  // users' own statistics, and upload each cluster's cumulative statistics
  // (one fresh noise node each when private). A cluster whose budget is spent
  // uploads nothing and learns alone.
  std::vector<StatsUpload> start_phase(uint32_t phase);
  // False (and nothing changed) for a download addressed elsewhere or to
  // another phase.
  bool apply(const StatsDownload& down);

  uint32_t server_id() const { return id_; }
  uint32_t n_users() const { return static_cast<uint32_t>(users_.size()); }
  uint32_t cluster_count() const { return static_cast<uint32_t>(clusters_.size()); }
  uint32_t cluster_of(uint32_t user) const { return cluster_of_[user]; }
  // The worst user's ledger (ledgers() has every user's).
  const CdpLedger& ledger() const { return ledgers_.worst(); }
  const UserLedgers& ledgers() const { return ledgers_; }
  const Stats& user_stats(uint32_t user) const { return users_[user]; }
  // The cluster's synchronized statistics as the global server sent them.
  const Stats& synced(uint32_t cluster) const { return clusters_[cluster].sync; }
  // A 16-byte hash of the whole learning state (users, clusters, the noise
  // they carry, the phase and the CDP ledger): equal digests, equal states.
  // It shows that replaying a store rebuilt the state bit for bit.
  std::array<uint8_t, 16> state_digest() const;

 private:
  struct Cluster {
    std::vector<uint32_t> members;
    Stats sync;       // the synchronized statistics (others' privatized data included)
    Stats own_noise;  // noise this server put into `sync`: removed from the view
    Stats up;         // raw interactions since the last upload
    Stats base;       // sync - own_noise, made PSD: the view without `up`
    Eigen::LLT<Eigen::MatrixXd> factor;  // of ridge I + base.gram + up.gram
    double base_log_det = 0.0;           // ln det(ridge I + base.gram)
    uint64_t uploads = 0;                // in this phase: leaves of the tree
    uint64_t released_count = 0;         // the noisy count its phase-start upload carried
    bool sharing = true;                 // false once the budget is spent
  };

  void rebuild_view(Cluster& c);
  double beta(uint64_t n) const;
  bool upload_due(const Cluster& c);
  std::vector<std::vector<uint32_t>> split_users();
  std::vector<std::vector<uint32_t>> merge_own(
      const std::vector<std::vector<uint32_t>>& parts) const;
  // The noise of prefix k of one tree into `out`; returns its count noise.
  double noise_for(uint32_t phase, uint64_t cluster_key, uint64_t k, Stats* out) const;

  FclubConfig cfg_;
  uint32_t id_;
  uint32_t phase_ = 0;
  uint64_t local_rounds_ = 0;  // interactions seen: the private upload clock
  uint64_t phase_ticks_ = 0;   // its ticks in this phase
  TreeSeed noise_key_;
  CdpPlan plan_;
  UserLedgers ledgers_;
  std::vector<Stats> users_;
  std::vector<std::vector<bool>> linked_;  // the user graph G_l
  std::vector<Cluster> clusters_;
  std::vector<uint32_t> cluster_of_;
  Eigen::VectorXd theta_, scratch_;
};

}  // namespace p2b::fclub
