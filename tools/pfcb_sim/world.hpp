// P-FCB's procurement world (seed 004, section 6.1): m producers with one
// Bernoulli quality q_i each, n agents with their own costs c_ij and
// capacities k_ij. Every algorithm of a run sees the same instance and the
// same realisations (common random numbers): the good units among l procured
// from producer i by agent j at round t come from one uniform keyed by
// (seed, instance, run, j, i, t), inverted through Binomial(l, q_i), so a
// larger l never gives fewer good units.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace p2b::pfcb_sim {

enum class Dist : uint32_t { uniform = 0, normal = 1 };
// How a violated round is charged: optimum loses the round's optimum (the
// probe's L = r(s*)); max_regret is the paper's L = max_s r(s*) - r(s).
enum class ViolationCost : uint32_t { optimum = 0, max_regret = 1 };

const char* dist_name(Dist d);

struct InstanceSpec {
  uint32_t producers = 30;  // m
  uint32_t agents = 10;     // n
  Dist dist = Dist::normal;
  // Heterogeneous: per-agent costs and capacities (the paper's P-FCB
  // setting); homogeneous: agent 0's for everyone.
  bool homogeneous = false;
  uint32_t max_capacity = 50;  // k ~ U{1..max_capacity}
  double alpha = 0.4;
  double rho = 1.0;
  ViolationCost violation = ViolationCost::optimum;
  uint64_t seed = 1;
  uint32_t instance = 0;
};

// What one agent's procurement earned against its own optimum.
struct Score {
  double regret = 0.0;
  bool met = true;  // the quality constraint under the true q
};

class World {
 public:
  explicit World(const InstanceSpec& spec);  // throws std::invalid_argument on bad sizes
  const InstanceSpec& spec() const { return spec_; }
  uint32_t m() const { return spec_.producers; }
  uint32_t n() const { return spec_.agents; }
  const std::vector<double>& quality() const { return quality_; }
  const double* cost(uint32_t j) const { return &cost_[std::size_t{j} * m()]; }
  const uint32_t* capacity(uint32_t j) const { return &capacity_[std::size_t{j} * m()]; }
  // The true optimum s*_j (cmab_select on the true q with agent j's c, k),
  // its reward, and the charge of a violated round.
  const std::vector<uint32_t>& optimum(uint32_t j) const { return optimum_[j]; }
  double optimum_reward(uint32_t j) const { return optimum_reward_[j]; }
  double violation_charge(uint32_t j) const { return charge_[j]; }
  // sum_i l_i (rho q_i - c_ij) under the true q.
  double reward(uint32_t j, const uint32_t* units) const;
  bool meets_constraint(const uint32_t* units) const;
  Score score(uint32_t j, const uint32_t* units) const;
  // Good units among `units` procured by agent j from producer i at round t
  // of run `run`.
  uint32_t good(uint32_t run, uint32_t j, uint32_t i, uint64_t t, uint32_t units) const;
  // The same for a stream made once per (run, agent): the simulator's hot
  // path (two hash rounds and a table search a draw instead of six and a
  // pow), giving good()'s values exactly.
  uint64_t stream(uint32_t run, uint32_t j) const;
  uint32_t good_in(uint64_t stream, uint32_t i, uint64_t t, uint32_t units) const;

 private:
  // The constructor's steps: q, c and k from the keys; the cdf table; each
  // agent's s*, r(s*) and the cost of a violation.
  void draw_instance();
  void build_cdfs();
  void solve_optima();

  InstanceSpec spec_;
  std::vector<double> quality_;
  std::vector<double> cost_;        // n x m
  std::vector<uint32_t> capacity_;  // n x m
  std::vector<std::vector<uint32_t>> optimum_;
  std::vector<double> optimum_reward_;
  std::vector<double> charge_;
  // cdf_[i][offset(l) + x] = P(Binomial(l, q_i) <= x) for l <= max_capacity,
  // built by binomial_inverse's own recurrence so the two agree to the bit.
  std::vector<std::vector<double>> cdf_;
};

// A counter-based uniform in [0, 1) from a key: the same key, the same draw,
// on any thread and in any order.
double keyed_uniform(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f);
// keyed_uniform in two steps: the first four keys once, then the last two.
uint64_t keyed_prefix(uint64_t a, uint64_t b, uint64_t c, uint64_t d);
double keyed_finish(uint64_t prefix, uint64_t e, uint64_t f);
// The smallest x with P(Binomial(l, q) <= x) >= u: monotone in l for fixed u.
uint32_t binomial_inverse(double u, uint32_t l, double q);

}  // namespace p2b::pfcb_sim
