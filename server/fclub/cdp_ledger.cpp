#include "fclub/cdp_ledger.hpp"

#include <cmath>
#include <cstdint>

#include "dp/tree_noise.hpp"
#include "dp/zcdp.hpp"

namespace p2b::fclub {

CdpPlan plan_cdp(const FclubConfig& cfg) {
  CdpPlan p;
  // One record changes the released upper triangle of [x; y][x; y]^T by
  // sum_{i<=j<d} x_i^2 x_j^2 + y^2 ||x||^2 <= ||x||^4 + y^2 ||x||^2 (the
  // (d, d) entry y^2 is never released), and the count in that slot by 1.
  const double x2 = cfg.max_item_norm * cfg.max_item_norm;
  const double y2 = cfg.max_reward * cfg.max_reward;
  p.sensitivity = std::sqrt(x2 * x2 + y2 * x2 + 1.0);
  p.tree_levels = dp::tree_levels(cfg.max_uploads_per_phase);
  p.phase_releases = cfg.max_phases;
  const uint32_t releases = p.tree_levels + p.phase_releases;
  if (std::isinf(cfg.epsilon)) {  // no noise: the private path as a reference
    p.rho_budget = INFINITY;
    return p;
  }
  p.rho_budget = dp::zcdp_rho(cfg.epsilon, cfg.delta);
  p.sigma = dp::gaussian_sigma(cfg.epsilon, cfg.delta, p.sensitivity, releases);
  p.rho_per_node = p.sensitivity * p.sensitivity / (2.0 * p.sigma * p.sigma);
  return p;
}

uint64_t CdpLedger::budget_nodes() const {
  if (plan_.rho_per_node == 0.0) return UINT64_MAX;  // epsilon = infinity
  return static_cast<uint64_t>(plan_.rho_budget / plan_.rho_per_node * (1.0 + 1e-9));
}

bool CdpLedger::can_start_phase() const {
  const uint64_t old = worst_old_ > depth_ ? worst_old_ : depth_;
  return !started_ || old + 1 <= budget_nodes();
}

void CdpLedger::on_phase_start() {
  const uint64_t old = worst_old_ > depth_ ? worst_old_ : depth_;
  worst_old_ = started_ ? old + 1 : 0;  // the first phase re-releases nothing
  started_ = true;
  depth_ = 0;
}

bool CdpLedger::can_upload(uint64_t k) const {
  const uint64_t depth = dp::tree_levels(k);
  return (depth > depth_ ? depth : depth_) <= budget_nodes() && worst_old_ <= budget_nodes();
}

void CdpLedger::on_upload(uint64_t k) {
  const uint64_t depth = dp::tree_levels(k);
  if (depth > depth_) depth_ = depth;
}

double CdpLedger::rho_spent() const {
  return static_cast<double>(nodes_charged()) * plan_.rho_per_node;
}

double CdpLedger::epsilon_spent(double delta) const {
  if (nodes_charged() == 0) return 0.0;
  if (plan_.rho_per_node == 0.0) return INFINITY;  // noise-free releases
  return dp::zcdp_epsilon(rho_spent(), delta);
}

UserLedgers::UserLedgers(const CdpPlan& plan, uint32_t n_users)
    : users_(n_users == 0 ? 1 : n_users, CdpLedger(plan)) {}

bool UserLedgers::can_release(const std::vector<uint32_t>& members) const {
  for (const uint32_t u : members) {
    if (!users_[u].can_start_phase()) return false;
  }
  return true;
}

void UserLedgers::on_release(const std::vector<uint32_t>& members) {
  for (const uint32_t u : members) users_[u].on_phase_start();
  track(members);
}

bool UserLedgers::can_upload(const std::vector<uint32_t>& members, uint64_t k) const {
  for (const uint32_t u : members) {
    if (!users_[u].can_upload(k)) return false;
  }
  return true;
}

void UserLedgers::on_upload(const std::vector<uint32_t>& members, uint64_t k) {
  for (const uint32_t u : members) users_[u].on_upload(k);
  track(members);
}

void UserLedgers::track(const std::vector<uint32_t>& members) {
  for (const uint32_t u : members) {
    if (users_[u].nodes_charged() > users_[worst_].nodes_charged()) worst_ = u;
  }
}

}  // namespace p2b::fclub
