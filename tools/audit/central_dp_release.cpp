// The analyzer's central-DP release (CentralDp::release: tree-mechanism
// Gaussian noise on the per-arm sums). Unit: one report (x, r) with
// ||x|| = 1 and r = 1, the worst case of the sensitivity sqrt(3), present or
// absent among a few others in the first batch. The attacker reads the
// published arrays of the victim's arm and projects them on the report's
// direction (A's diagonal + b + n for d = 1): the likelihood-ratio test.
// The audit sets horizon = 1, so this one release is charged the whole
// budget and the claim is as tight as the accounting allows.
#include <array>

#include "audit/audit_case.hpp"
#include "central_dp.hpp"
#include "dp/zcdp.hpp"

namespace p2b::audit {

namespace {

constexpr double kLambda = 1.0;

analyzer::CentralDpConfig shipped_config() {
  analyzer::CentralDpConfig c;
  c.epsilon = 1.0;  // the audit's setting; delta stays the default 1e-6
  c.horizon = 1;
  return c;
}

// The epsilon whose sigma is the shipped sigma / `divisor`: the audit's way
// to build the broken release without an option in the analyzer.
analyzer::CentralDpConfig weakened(double divisor) {
  analyzer::CentralDpConfig c = shipped_config();
  const double rho = dp::zcdp_rho(c.epsilon, c.delta) * divisor * divisor;
  c.epsilon = dp::zcdp_epsilon(rho, c.delta);
  return c;
}

std::vector<double> projected_releases(const analyzer::CentralDpConfig& config, int world,
                                       std::size_t runs, uint64_t seed) {
  analyzer::Statistics exact(1, 1);
  const double other_x[1] = {0.5};
  for (int i = 0; i < 4; ++i) exact.add(0, other_x, 0.5);
  if (world == 1) {
    const double victim_x[1] = {1.0};
    exact.add(0, victim_x, 1.0);
  }
  std::vector<double> out;
  out.reserve(runs);
  for (std::size_t r = 0; r < runs; ++r) {
    dp::NoiseSeed noise_seed{};
    for (std::size_t i = 0; i < noise_seed.size(); i += 8) {
      const uint64_t word = mix_seed(seed, r * 4 + i / 8);
      for (std::size_t b = 0; b < 8; ++b) noise_seed[i + b] = static_cast<uint8_t>(word >> (8 * b));
    }
    const analyzer::CentralDp mechanism(config, noise_seed);
    const analyzer::NoisyRelease rel = mechanism.release(exact, 1, kLambda);
    out.push_back(rel.a[0] + rel.b[0] + rel.counts[0]);
  }
  return out;
}

AuditCase make_case(const analyzer::CentralDpConfig& run, const char* variant, Variant kind) {
  const analyzer::CentralDpConfig claim = shipped_config();
  AuditCase c;
  c.mechanism = "central_dp";
  c.variant = variant;
  c.kind = kind;
  c.unit = "one report (||x|| = 1, r = 1), present or not";
  c.adversary = "model readers (the published statistics)";
  c.claim_source = "CentralDp(eps 1, delta 1e-6, horizon 1): zCDP";
  c.claimed_epsilon = claim.epsilon;
  c.claimed_delta = claim.delta;
  c.sample = [run](int world, std::size_t runs, uint64_t seed) {
    return projected_releases(run, world, runs, seed);
  };
  return c;
}

}  // namespace

std::vector<AuditCase> central_dp_cases() {
  return {make_case(shipped_config(), "as shipped", Variant::shipped),
          make_case(weakened(10.0), "sigma / 10", Variant::broken)};
}

}  // namespace p2b::audit
