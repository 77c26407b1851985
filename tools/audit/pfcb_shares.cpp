// P-FCB's Gaussian shares, through the device core's CmabAgent (observe
// draws the release, poll_share hands it out). Unit (a) of the agent's
// accountant: one element of one producer's history, here the quality of
// the one unit procured in the release round, good (world 1) or not
// (world 0). A peer sees the share; the attacker thresholds y~.
// The claim is the agent's own accountant after that release
// (element_epsilon at delta_target: exact GDP accounting).
#include <cstdlib>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "audit/audit_case.hpp"
#include "p2b/cmab.hpp"

namespace p2b::audit {

namespace {

void check(Status st, const char* what) {
  if (st != Status::ok) throw std::runtime_error(std::string(what) + ": " + status_str(st));
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

const double kCost[1] = {1.0};
const uint32_t kCapacity[1] = {1};

// One producer of capacity 1, and a release at the end of round 1.
CmabConfig agent_config(double epsilon, uint64_t seed) {
  CmabConfig c;
  c.producers = 1;
  c.cost = kCost;
  c.capacity = kCapacity;
  c.horizon = 1000;
  c.schedule = CmabSchedule::every_round;
  c.window_start = 1;
  c.window_stop = 1;
  c.epsilon = epsilon;
  c.deterministic = true;
  c.seed = seed;
  return c;
}

// The shipped budget (CmabConfig's defaults: eps 1, delta 0.01).
double shipped_epsilon() {
  return CmabConfig{}.epsilon;
}

class OneRoundAgent {
 public:
  OneRoundAgent(double epsilon, uint64_t seed) {
    const CmabConfig cfg = agent_config(epsilon, seed);
    std::size_t bytes = 0;
    check(CmabAgent::footprint(cfg, &bytes), "CmabAgent::footprint");
    const std::size_t align = kArenaAlign < sizeof(void*) ? sizeof(void*) : kArenaAlign;
    const std::size_t rounded = (bytes + align - 1) / align * align;
    arena_.reset(std::aligned_alloc(align, rounded));
    if (!arena_) throw std::bad_alloc();
    check(CmabAgent::init(arena_.get(), rounded, cfg, &agent_), "CmabAgent::init");
  }

  // The share of round 1, in which the procured unit was `good` or not.
  CmabShare release(bool good) {
    uint32_t units[1] = {0};
    check(agent_->decide(units, 1), "CmabAgent::decide");
    const uint32_t good_units[1] = {good && units[0] > 0 ? 1U : 0U};
    check(agent_->observe(good_units, 1), "CmabAgent::observe");
    CmabShare share;
    check(agent_->poll_share(&share), "CmabAgent::poll_share");
    return share;
  }

  CmabPrivacy privacy() const {
    CmabPrivacy p;
    check(agent_->privacy(&p), "CmabAgent::privacy");
    return p;
  }

 private:
  std::unique_ptr<void, FreeDeleter> arena_;
  CmabAgent* agent_ = nullptr;
};

std::vector<double> shares(double epsilon, int world, std::size_t runs, uint64_t seed) {
  std::vector<double> out;
  out.reserve(runs);
  for (std::size_t r = 0; r < runs; ++r) {
    OneRoundAgent agent(epsilon, mix_seed(seed, r));
    out.push_back(agent.release(world == 1).y_noisy[0]);
  }
  return out;
}

AuditCase make_case(double sigma_divisor, const char* variant, Variant kind) {
  OneRoundAgent reference(shipped_epsilon(), 1);
  reference.release(false);
  const CmabPrivacy claim = reference.privacy();
  // sigma is proportional to 1 / eps_z, and eps_z to the budget: a budget
  // `sigma_divisor` times larger is the shipped noise divided by it.
  const double run_epsilon = shipped_epsilon() * sigma_divisor;
  AuditCase c;
  c.mechanism = "pfcb_shares";
  c.variant = variant;
  c.kind = kind;
  c.unit = "one element of one producer's history (a unit good or not)";
  c.adversary = "the other agents (peers) and the relay";
  c.claim_source = "CmabAgent::privacy element_epsilon at delta_target (GDP), eps 1 as shipped";
  c.claimed_epsilon = claim.element_epsilon;
  c.claimed_delta = claim.delta_target;
  c.sample = [run_epsilon](int world, std::size_t runs, uint64_t seed) {
    return shares(run_epsilon, world, runs, seed);
  };
  return c;
}

}  // namespace

std::vector<AuditCase> pfcb_share_cases() {
  return {make_case(1.0, "as shipped", Variant::shipped),
          make_case(10.0, "sigma / 10", Variant::broken)};
}

}  // namespace p2b::audit
