#include "compare_sim/privacy_spend.hpp"

#include <cmath>

#include "dp/zcdp.hpp"
#include "fclub/cdp_ledger.hpp"
#include "fclub/fclub_config.hpp"
#include "p2b/cmab.hpp"

namespace p2b::compare_sim {

double zcdp_to_epsilon(double rho, double delta) {
  return rho > 0.0 ? dp::zcdp_epsilon(rho, delta) : 0.0;
}

double zcdp_group_rho(double rho_per_record, uint32_t records) {
  const auto k = static_cast<double>(records);
  return k * k * rho_per_record;
}

Spend p2b_user_spend(double participation, uint64_t threshold, uint32_t reports) {
  const double q = 1.0 - participation;
  const auto m = static_cast<double>(reports);
  // -ln(1 - p) is Eq. 2 simplified: p (2 - p) / (1 - p) + (1 - p) = 1 / (1 - p).
  return Spend{-m * std::log(q), m * std::exp(-static_cast<double>(threshold) * q * q)};
}

Spend p2b_public_spend(const Spend& analyzer, double central_rho, double delta) {
  if (!(central_rho > 0.0)) return analyzer;
  const Spend central{zcdp_to_epsilon(central_rho, delta), delta};
  return central.epsilon < analyzer.epsilon ? central : analyzer;
}

double fclub_rho_per_record(const fclub::FclubConfig& cfg, double knob, uint64_t nodes) {
  fclub::FclubConfig at = cfg;
  at.epsilon = knob;
  return static_cast<double>(nodes) * fclub::plan_cdp(at).rho_per_node;
}

Spend fclub_user_spend(double rho_per_record, uint32_t steps, double delta) {
  return Spend{zcdp_to_epsilon(zcdp_group_rho(rho_per_record, steps), delta), delta};
}

double pfcb_interaction_sensitivity() {
  return std::sqrt(2.0);
}

double pfcb_release_sigma(double knob, uint32_t steps, uint32_t z, double delta) {
  const double eps_z = cmab_release_epsilon(knob, steps, CmabLogBase::two, z);
  return pfcb_interaction_sensitivity() * cmab_noise_multiplier(eps_z, delta);
}

double pfcb_posting_mu2(double sigma, uint32_t interactions) {
  const double mu = static_cast<double>(interactions) * pfcb_interaction_sensitivity() / sigma;
  return mu * mu;
}

Spend pfcb_user_spend(double knob, uint32_t steps, double delta) {
  double mu2 = 0.0;
  uint64_t tau = cmab_first_tau(CmabSchedule::paper, 1);
  uint32_t since_release = 0;
  uint32_t z = 0;
  for (uint64_t t = 1; t <= steps; ++t) {
    ++since_release;
    if (!cmab_is_release_round(t, 1, steps, tau)) continue;
    mu2 += pfcb_posting_mu2(pfcb_release_sigma(knob, steps, ++z, delta), since_release);
    since_release = 0;
    tau = cmab_next_tau(CmabSchedule::paper, tau);
  }
  return Spend{gdp_epsilon(std::sqrt(mu2), delta), delta};
}

}  // namespace p2b::compare_sim
