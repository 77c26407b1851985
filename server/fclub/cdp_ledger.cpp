#include "fclub/cdp_ledger.hpp"

#include <cmath>

#include "dp/tree_noise.hpp"
#include "dp/zcdp.hpp"

namespace p2b::fclub {

CdpPlan plan_cdp(const FclubConfig& cfg) {
  CdpPlan p;
  p.sensitivity = cfg.max_item_norm * cfg.max_item_norm + cfg.max_reward * cfg.max_reward;
  p.tree_levels = dp::tree_levels(cfg.max_uploads_per_phase);
  p.phase_releases = cfg.max_phases;
  const uint32_t releases = p.tree_levels + p.phase_releases;
  p.rho_budget = dp::zcdp_rho(cfg.epsilon, cfg.delta);
  p.sigma = dp::gaussian_sigma(cfg.epsilon, cfg.delta, p.sensitivity, releases);
  p.rho_per_node = p.sensitivity * p.sensitivity / (2.0 * p.sigma * p.sigma);
  return p;
}

uint64_t CdpLedger::budget_nodes() const {
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
  const double rho = rho_spent();
  return rho == 0.0 ? 0.0 : dp::zcdp_epsilon(rho, delta);
}

}  // namespace p2b::fclub
