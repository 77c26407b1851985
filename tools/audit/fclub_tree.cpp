// FCLUB's tree privatizer (TreePrivatizer::prefix_noise) on a local
// cluster's first upload of a phase, with the noise plan_cdp sizes for the
// (epsilon, delta) budget. Unit: one interaction (x, y), ||x|| = 1, y = 1,
// present or absent in the uploaded sums. The global server sees S + H and
// u + h; for d = 1 the report adds 1 to both, so the attacker thresholds
// their sum. The claim is the ledger's spend after this one upload.
#include "audit/audit_case.hpp"
#include "fclub/cdp_ledger.hpp"
#include "fclub/tree_privatizer.hpp"

namespace p2b::audit {

namespace {

fclub::FclubConfig audit_config() {
  fclub::FclubConfig c;  // epsilon and delta as shipped
  c.dim = 1;
  c.private_uploads = true;
  // One upload per phase and one phase: the smallest tree the ledger knows,
  // so the audited upload carries as much of the budget as any can.
  c.max_uploads_per_phase = 1;
  c.max_phases = 1;
  return c;
}

double claimed_epsilon(const fclub::FclubConfig& c) {
  fclub::CdpLedger ledger(fclub::plan_cdp(c));
  ledger.on_phase_start();
  ledger.on_upload(1);
  return ledger.epsilon_spent(c.delta);
}

std::vector<double> uploads(double sigma, int world, std::size_t runs, uint64_t seed) {
  // Four other interactions with x = 0.5, y = 0.5, then maybe the victim's.
  double gram = 4 * 0.25;
  double moment = 4 * 0.25;
  if (world == 1) {
    gram += 1.0;
    moment += 1.0;
  }
  std::vector<double> out;
  out.reserve(runs);
  Eigen::MatrixXd gram_noise;
  Eigen::VectorXd moment_noise;
  for (std::size_t r = 0; r < runs; ++r) {
    fclub::TreeSeed master{};
    for (std::size_t i = 0; i < master.size(); i += 8) {
      const uint64_t word = mix_seed(seed, r * 4 + i / 8);
      for (std::size_t b = 0; b < 8; ++b) master[i + b] = static_cast<uint8_t>(word >> (8 * b));
    }
    const fclub::TreePrivatizer privatizer(1, sigma, fclub::derive_tree_seed(master, 1, 0));
    privatizer.prefix_noise(1, &gram_noise, &moment_noise);
    out.push_back(gram + gram_noise(0, 0) + moment + moment_noise(0));
  }
  return out;
}

AuditCase make_case(double sigma_divisor, const char* variant, Variant kind) {
  const fclub::FclubConfig config = audit_config();
  const double sigma = fclub::plan_cdp(config).sigma / sigma_divisor;
  AuditCase c;
  c.mechanism = "fclub_tree";
  c.variant = variant;
  c.kind = kind;
  c.unit = "one interaction (||x|| = 1, y = 1), present or not";
  c.adversary = "global server and other local servers";
  c.claim_source = "CdpLedger after one upload (eps 1, delta 0.1 as shipped; tree of 1, 1 phase)";
  c.claimed_epsilon = claimed_epsilon(config);
  c.claimed_delta = config.delta;
  c.sample = [sigma](int world, std::size_t runs, uint64_t seed) {
    return uploads(sigma, world, runs, seed);
  };
  return c;
}

}  // namespace

std::vector<AuditCase> fclub_tree_cases() {
  return {make_case(1.0, "as shipped", Variant::shipped),
          make_case(10.0, "sigma / 10", Variant::broken)};
}

}  // namespace p2b::audit
