// The n agents of one run, whatever the algorithm: they decide in index
// order within a round, observe, and only when every agent has observed
// round t do shares move (end_round), so a share released at t is applied
// by the others before round t + 1. FCB pools at the same point, which is
// what makes P-FCB with exact, accept-all, every-round sharing equal to it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "p2b/cmab.hpp"
#include "pfcb_sim/world.hpp"

namespace p2b::pfcb_sim {

// Everything the agents share beyond the world: the library's CmabConfig
// fields the simulator sets, one value for all agents.
struct TeamSpec {
  uint32_t explore_rounds = 10;
  double ucb_scale = 1.0;
  double quality_margin = 0.0;
  uint64_t horizon = 100000;
  CmabSchedule schedule = CmabSchedule::paper;
  uint64_t window_start = 200;
  uint64_t window_stop = 40000;
  CmabLogBase log_base = CmabLogBase::two;
  double epsilon = 1.0;  // 0: never releases (non-federated); infinity: exact counts
  double delta = 0.01;
  double omega1 = 0.1;  // infinity: accept every report
  double omega2 = 10.0;
  uint32_t public_max_capacity = 0;
  uint64_t seed = 1;  // the agents' noise streams derive from it
};

// Per agent, summed over the run.
struct Traffic {
  uint64_t postings_sent = 0;      // releases polled and posted
  uint64_t postings_received = 0;  // others' postings applied or refused
  uint64_t refused = 0;            // postings apply_share refused whole
  uint64_t accepted = 0;           // producer reports accepted
  uint64_t rejected = 0;           // producer reports rejected
};

class Team {
 public:
  virtual ~Team() = default;
  // Agent j's units this round (m values).
  virtual void decide(uint32_t j, uint32_t* units) = 0;
  virtual void observe(uint32_t j, const uint32_t* good) = 0;
  // After every agent observed the round: shares move, or FCB pools.
  virtual void end_round() = 0;
  virtual const std::vector<Traffic>& traffic() const = 0;
  // Agent j's ledger; all zero for a team that never releases.
  virtual CmabPrivacy privacy(uint32_t j) const = 0;
};

// n p2b::CmabAgent instances exchanging CmabShares in memory.
std::unique_ptr<Team> make_agent_team(const World& world, const TeamSpec& spec);
// FCB, the paper's non-private baseline: every agent uses the pooled W, Y
// of all agents up to the last round, with the agent's UCB and oracle.
std::unique_ptr<Team> make_fcb_team(const World& world, const TeamSpec& spec);

// The CmabConfig of agent j (pointers into `world`).
CmabConfig agent_config(const World& world, const TeamSpec& spec, uint32_t j);

}  // namespace p2b::pfcb_sim
