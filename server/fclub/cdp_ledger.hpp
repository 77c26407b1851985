// Cluster-level DP accounting for FCLUB, in zero-concentrated DP.
//
// The unit is one interaction (x, y) of one user. The adversary is anyone
// outside the user's local server: the global server and the other servers.
// Every upload is a Gaussian release of L2 sensitivity D (below), costing
// D^2 / (2 sigma^2) per node that holds the record.
// A record lies in one leaf of its phase's tree, so in at most
// m = ceil(log2 max_uploads_per_phase) + 1 released nodes; and it is
// released again in every later phase-start upload of its cluster, because
// those carry cumulative sums: at most P = max_phases more releases, which
// the paper's proof leaves out. Hence rho = (m + P) D^2 / (2 sigma^2), and
// sigma is solved from the (epsilon, delta) budget at start. D bounds the
// change one record makes to everything a node covers: the released upper
// triangle of [x; y][x; y]^T (all but y^2) and the count in the (d, d) slot,
// so D^2 = max||x||^4 + max y^2 max||x||^2 + 1 (3 at the defaults).
#pragma once

#include <cstdint>
#include <vector>

#include "fclub/fclub_config.hpp"

namespace p2b::fclub {

struct CdpPlan {
  double sensitivity = 0.0;     // D
  uint32_t tree_levels = 0;     // m
  uint32_t phase_releases = 0;  // P
  double sigma = 0.0;           // per upper-triangle entry of a node
  double rho_budget = 0.0;
  double rho_per_node = 0.0;  // D^2 / (2 sigma^2)
};

// The noise that makes the worst record cost exactly (epsilon, delta).
CdpPlan plan_cdp(const FclubConfig& cfg);

// One local server's spend, as its worst-case record sees it. A record that
// arrived in phase a costs the tree nodes that hold it in phase a (at most
// the depth that phase's busiest cluster tree reached) plus one node per
// later phase-start release. Conservative: every cluster's record is
// charged the deepest tree of the server.
class CdpLedger {
 public:
  explicit CdpLedger(const CdpPlan& plan) : plan_(plan) {}
  // Whether a phase-start release (every older record once more) fits.
  bool can_start_phase() const;
  void on_phase_start();
  // Whether the k-th in-phase upload of a cluster fits: its leaf's records
  // sit in ceil(log2 k) + 1 nodes.
  bool can_upload(uint64_t k) const;
  void on_upload(uint64_t k);
  uint64_t nodes_charged() const { return worst_old_ > depth_ ? worst_old_ : depth_; }
  double rho_spent() const;
  double epsilon_spent(double delta) const;
  const CdpPlan& plan() const { return plan_; }
  // The ledger's whole state, for the local's state digest.
  uint64_t worst_old() const { return worst_old_; }
  uint64_t depth() const { return depth_; }
  bool started() const { return started_; }

 private:
  uint64_t budget_nodes() const;
  CdpPlan plan_;
  uint64_t worst_old_ = 0;  // nodes of the worst record from earlier phases
  uint64_t depth_ = 0;      // deepest tree path released this phase
  bool started_ = false;
};

// The ledger per user: what the unit of privacy (one interaction of one
// user) needs. A user's records are released only in its own clusters'
// trees and phase-start uploads, so each user's CdpLedger charges those and
// no other cluster's deeper tree; a cluster releases only when every member
// can pay, and a user whose budget is spent keeps its cluster from sharing.
class UserLedgers {
 public:
  UserLedgers(const CdpPlan& plan, uint32_t n_users);
  bool can_release(const std::vector<uint32_t>& members) const;  // a phase-start upload
  void on_release(const std::vector<uint32_t>& members);
  bool can_upload(const std::vector<uint32_t>& members, uint64_t k) const;
  void on_upload(const std::vector<uint32_t>& members, uint64_t k);
  const CdpLedger& user(uint32_t u) const { return users_[u]; }
  uint32_t n_users() const { return static_cast<uint32_t>(users_.size()); }
  // The user whose worst record has cost the most: the server's spend.
  const CdpLedger& worst() const { return users_[worst_]; }

 private:
  void track(const std::vector<uint32_t>& members);
  std::vector<CdpLedger> users_;
  uint32_t worst_ = 0;
};

}  // namespace p2b::fclub
