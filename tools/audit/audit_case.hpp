// One row of the audit: a mechanism of the project, run through its own
// code, on two neighbouring inputs, with the attacker's statistic of each
// release and the (epsilon, delta) the project's accounting claims for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace p2b::audit {

// Which build of the mechanism a row runs. `broken` ones are the audit's own
// sabotage (sigma / 10, threshold off, sampling probability 1), injected
// through the audit's calls into the mechanism: no service option selects
// them. The audit must catch every one.
enum class Variant { shipped, broken };

struct AuditCase {
  std::string mechanism;  // short name, stable (JSON key, plot label)
  std::string variant;    // "as shipped" or what was broken
  Variant kind = Variant::shipped;
  std::string unit;       // what the neighbouring inputs differ in
  std::string adversary;  // who sees the release
  std::string claim_source;
  double claimed_epsilon = 0.0;  // +infinity: no bound is claimed
  double claimed_delta = 0.0;
  // The attacker's statistic of `runs` independent releases in `world`
  // (0 or 1); the same seed gives the same values.
  std::function<std::vector<double>(int world, std::size_t runs, uint64_t seed)> sample;
};

// Independent 64-bit seeds from one (SplitMix64's output function): the
// audit's only source of randomness, so a run repeats under --seed.
uint64_t mix_seed(uint64_t seed, uint64_t stream);

// The rows of each mechanism, the shipped build first.
std::vector<AuditCase> p2b_participation_cases();
std::vector<AuditCase> central_dp_cases();
std::vector<AuditCase> fclub_tree_cases();
std::vector<AuditCase> pfcb_share_cases();
std::vector<AuditCase> o3m_mask_cases();

}  // namespace p2b::audit
