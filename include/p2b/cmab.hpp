// P-FCB (Solanki et al., ECML PKDD 2022): an agent procures units from m
// producers under a minimum-quality constraint, learns the producers'
// Bernoulli qualities by UCB, and shares noisy increments of its per-producer
// counts with competing agents at a few rounds. Like Agent and SharedModel it
// lives in one caller-provided arena and never allocates, throws or uses
// RTTI; every call either succeeds or leaves the state unchanged.
#pragma once

#include <cstddef>
#include <cstdint>

#include "p2b/config.hpp"
#include "p2b/status.hpp"

namespace p2b {

constexpr uint32_t kCmabMaxProducers = 64;  // m; also the share format's limit
constexpr uint32_t kCmabMaxPeers = 1024;    // agents whose shares one agent applies
// The largest capacity (units per producer per round). Bounds every count an
// agent keeps below 2^53 over 2^32 rounds, so doubles stay exact integers.
constexpr uint32_t kCmabMaxCapacity = 1U << 20;

// ---- The oracle ------------------------------------------------------------

// One selection problem: maximise sum_i l_i (rho q_i - c_i) subject to the
// quality constraint sum_i l_i (q_i - alpha) >= 0 and 0 <= l_i <= k_i.
struct CmabProblem {
  uint32_t m = 0;
  const double* quality = nullptr;   // q_i (an estimate or its UCB), finite
  const double* cost = nullptr;      // c_i, finite
  const double* capacity = nullptr;  // k_i >= 0
  double rho = 1.0;                  // revenue per unit of quality
  double alpha = 0.4;                // the quality threshold (alpha + margin)
};

// The exact optimum of the linear relaxation. `units` (m values) gets the
// solution, with at most one fractional entry; `value` its objective. The
// empty selection is always feasible, so this never fails on valid input.
// A sort of the Lagrangian breakpoints -r_i/g_i (by insertion: at m <= 64 it
// beats std::sort), then one walk. `scratch` holds m uint32_t. Statuses:
// null_pointer; bad_config for m outside 1..kCmabMaxProducers, rho <= 0 or
// a capacity outside [0, kCmabMaxCapacity]; non_finite for a NaN or
// infinite input or an r_i, g_i that overflows. On error nothing is written.
Status cmab_lp_optimum(const CmabProblem& p, double* units, double* value, uint32_t* scratch);

// The integer selection the agent procures: the LP optimum with its
// fractional entry rounded to the side that keeps the constraint (down for
// a unit below alpha, up for one above), or the empty selection when that
// rounded mix is worth less than nothing. Feasible whenever the LP is, never
// worth less than 0, and less than one unit's |r| of the rounded item below
// the LP optimum (so below the integer optimum too). Capacities must also be whole
// (bad_config otherwise); the statuses are cmab_lp_optimum's.
Status cmab_select(const CmabProblem& p, uint32_t* units, uint32_t* scratch);

// ---- When to share, and with how much budget ---------------------------------

enum class CmabSchedule : uint32_t {
  // Alg. 2 as written: tau starts at 1 and doubles after each release, so the
  // window [200, 40000] releases at 200..207 (tau catching up) and then at
  // 256, 512, ..., 32768: 16 releases.
  paper = 0,
  // tau starts at the window's first round: 200, 400, ..., 25600. No release
  // carries a single round of data.
  aligned = 1,
  // Every round of the window releases: FCB's synchronisation when eps is
  // infinite (the exactness check), and a budget sink otherwise.
  every_round = 2,
};

enum class CmabLogBase : uint32_t { two = 0, natural = 1 };

// Whether round t (1-based) releases, given tau before the round: t in
// [window_start, window_stop] and t >= tau. Pure: the agent, the simulator
// and the comparison share it.
bool cmab_is_release_round(uint64_t t, uint64_t window_start, uint64_t window_stop, uint64_t tau);
// tau before the first round, and tau after a release (every_round keeps 0).
uint64_t cmab_first_tau(CmabSchedule schedule, uint64_t window_start);
uint64_t cmab_next_tau(CmabSchedule schedule, uint64_t tau);
// How many releases the schedule makes in rounds 1..horizon (no budget stop).
uint32_t cmab_release_count(CmabSchedule schedule, uint64_t window_start, uint64_t window_stop,
                            uint64_t horizon);

// eps_z = eps / (2 log T) + eps / 2^(z+1) for the z-th release (z >= 1).
double cmab_release_epsilon(double eps_total, uint64_t horizon, CmabLogBase base, uint32_t z);

// The paper's closed form of sum_{z<=Z} eps_z: Z eps / (2 log T) + (eps/2)(1 - 2^-Z).
double cmab_paper_epsilon_sum(double eps_total, uint64_t horizon, CmabLogBase base, uint32_t z);

// The classical Gaussian mechanism's noise multiplier sqrt(2 ln(1.25/delta))
// / eps_z: sigma = sensitivity * this.
double cmab_noise_multiplier(double eps_release, double delta);

// ---- The accountant ----------------------------------------------------------

// Everything an agent has spent after `releases` releases. The Gaussian
// releases are accounted exactly: a Gaussian mechanism is mu-GDP with mu =
// sensitivity / sigma, and GDP composes by mu^2 sums, so the (eps, delta)
// figures below are exact for the mechanism, not bounds.
struct CmabPrivacy {
  uint32_t releases = 0;
  // The paper's claim: sum_z eps_z at the configured delta (basic
  // composition, one noisy quantity per release).
  double paper_epsilon = 0.0;
  double paper_delta = 0.0;
  // Basic composition counting both noisy quantities of each release: the
  // paper's own rule applied to what is sent (2 sum eps_z, 2 Z delta).
  double basic_epsilon = 0.0;
  double basic_delta = 0.0;
  // Unit (a), one element l_ij^t of one producer's history: it sits in one
  // release, which moves both w~ and y~ (L2 sensitivity sqrt(2) k). mu of
  // the worst release, and epsilon at delta_target for it.
  double element_mu = 0.0;
  double element_epsilon = 0.0;
  // The same element when every release is charged to it (sequential
  // composition: what holds even if the neighbouring notion is adaptive).
  double sequential_mu = 0.0;
  double sequential_epsilon = 0.0;
  // Unit (b), a whole round's procurement vector s_j^t: m producers.
  double vector_mu = 0.0;
  double vector_epsilon = 0.0;
  double delta_target = 0.0;  // the delta the epsilon figures are stated at
};

// delta(eps) of a mu-GDP mechanism: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2).
double gdp_delta(double mu, double eps);
// The least eps with gdp_delta(mu, eps) <= delta (bisection to 1e-12 relative).
double gdp_epsilon(double mu, double delta);

// ---- The agent -----------------------------------------------------------------

struct CmabConfig {
  uint32_t producers = 0;              // m, 1..kCmabMaxProducers
  const double* cost = nullptr;        // m costs c_i, finite, copied at init
  const uint32_t* capacity = nullptr;  // m capacities 1..kCmabMaxCapacity, copied
  double rho = 1.0;                    // revenue per unit of quality, > 0
  double alpha = 0.4;                  // quality threshold, in [0, 1]
  double quality_margin = 0.0;         // gamma: the oracle aims at alpha + gamma
  uint32_t explore_rounds = 10;        // rounds that procure one unit of each producer
  double ucb_scale = 1.0;              // q+ = q^ + ucb_scale sqrt(3 ln t / (2 W))
  uint64_t horizon = 100000;           // T, for the budget split
  CmabSchedule schedule = CmabSchedule::paper;
  uint64_t window_start = 200;   // t_lo (1-based rounds)
  uint64_t window_stop = 40000;  // t_hi
  CmabLogBase log_base = CmabLogBase::two;
  // The privacy budget (eps, delta) of the release schedule. eps = infinity
  // releases exact counts (FCB, non-private); eps = 0 never releases.
  double epsilon = 1.0;
  double delta = 0.01;
  double delta_target = 0.01;  // the delta the accountant states eps at
  // The noise's sensitivity: 0 uses each producer's own capacity (the
  // paper's choice, which reveals capacities through sigma); otherwise
  // this public bound, which must be >= every capacity.
  uint32_t public_max_capacity = 0;
  // Selective acceptance of others' shares (Procedure 1): accept producer
  // i's report when y~/w~ lies within omega1 * sqrt(3 ln(n t) / (2 W)) of
  // the own estimate, then add omega2 times it. omega1 = infinity accepts all.
  double omega1 = 0.1;
  double omega2 = 10.0;
  uint32_t agents = 1;         // n, for the acceptance radius
  uint32_t max_peers = 1;      // senders whose release counters are kept
  bool deterministic = false;  // seeded generator (tests, simulation) or `random`
  uint64_t seed = 0;
  RandomSource random{};
};

// One share: the noisy increments since the last release. Values are
// snapped to integers (post-processing), so the low bits of a float draw
// never leave the agent.
struct CmabShare {
  uint32_t producers = 0;
  uint32_t release = 0;  // z, 1-based
  uint64_t round = 0;    // t of the release
  double release_epsilon = 0.0;
  int32_t w_noisy[kCmabMaxProducers] = {};
  int32_t y_noisy[kCmabMaxProducers] = {};
};

// What apply_share did with each producer's report.
struct CmabApplyResult {
  uint32_t accepted = 0;
  uint32_t rejected = 0;
};

class CmabAgent {
 public:
  static Status footprint(const CmabConfig& cfg, std::size_t* bytes);
  static Status init(void* mem, std::size_t len, const CmabConfig& cfg, CmabAgent** out);
  static Status check(const void* mem);

  // The units to procure this round (m values). Explore rounds procure one
  // of each; afterwards the oracle runs on the UCBs. Call observe() next.
  Status decide(uint32_t* units, std::size_t m);
  // The good units among those procured (x_i <= units_i). Ends the round;
  // when the round releases, the noisy share is drawn now and waits for
  // poll_share().
  Status observe(const uint32_t* good, std::size_t m);
  // The waiting share, once: no_report when none waits, budget_exhausted
  // when the budget stopped releases.
  Status poll_share(CmabShare* out);
  // Procedure 1 on a share from peer `sender` (< max_peers): refused with
  // replayed unless its release number is above the last applied from that
  // sender. All producers' checks run against the state before the share.
  Status apply_share(uint32_t sender, const CmabShare& share, CmabApplyResult* result);
  // The same two on the encoded share (cmab_share_encode): the waiting share
  // is consumed only once it fits `cap`.
  Status poll_share_bytes(uint8_t* out, std::size_t cap, std::size_t* written);
  Status apply_share_bytes(uint32_t sender, const uint8_t* in, std::size_t len,
                           CmabApplyResult* result);

  // Saved state (docs/formats.md, "P-FCB agent state"): everything the agent
  // learned and spent, under a keyed MAC of the app's 32-byte state key; the
  // size is a function of m and max_peers alone. Restore takes a state of
  // the same configuration only (state_mismatch otherwise), refuses any
  // other key or edit (corrupt_state), and is all or nothing.
  Status saved_size(std::size_t* bytes) const;
  Status save(const uint8_t* key, void* buf, std::size_t cap, std::size_t* written) const;
  Status restore(const uint8_t* key, const void* buf, std::size_t len);

  Status privacy(CmabPrivacy* out) const;
  // The agent's estimates: W_i (units seen, own plus accepted) and q^_i.
  Status estimates(double* units_seen, double* quality, std::size_t m) const;
  Status round(uint64_t* t) const;  // rounds completed
};

// The share body on the wire (proto/p2b_pfcb.proto, Share): fixed length
// for a given m, so its size says nothing but m.
std::size_t cmab_share_encoded_size(uint32_t producers);
Status cmab_share_encode(const CmabShare& share, uint8_t* out, std::size_t cap,
                         std::size_t* written);
// Never trusts its input: a wrong length, a field out of range, an unknown
// format or trailing bytes give malformed_input.
Status cmab_share_decode(const uint8_t* in, std::size_t len, CmabShare* out);

}  // namespace p2b
