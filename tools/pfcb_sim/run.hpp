// One run of p2b-sim --protocol pfcb: one algorithm on one instance and one
// realisation stream, T rounds of n agents, scored against each agent's
// true optimum.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "pfcb_sim/options.hpp"
#include "pfcb_sim/team.hpp"
#include "pfcb_sim/world.hpp"

namespace p2b::pfcb_sim {

struct Task {
  std::string algorithm;
  Dist dist = Dist::normal;
  uint32_t agents = 10;
  double epsilon = 0.0;  // nf: 0; fcb: infinity; else P-FCB's
  uint32_t instance = 0;
  uint32_t run = 0;
};

struct RunResult {
  Task task;
  double regret = 0.0;          // cumulative regret per agent at T (mean over agents)
  double constraint_met = 0.0;  // fraction of agent-rounds meeting the constraint
  double optimum_reward = 0.0;  // r(s*) per round, mean over agents
  double refused = 0.0;         // postings apply_share refused whole, per agent
  double postings_sent = 0.0;   // per agent
  double postings_received = 0.0;
  double bytes_sent = 0.0;  // per agent, postings_sent x posting size
  double bytes_received = 0.0;
  double accepted = 0.0;  // producer reports accepted per agent
  double rejected = 0.0;
  CmabPrivacy privacy;  // mean over agents
  double seconds = 0.0;
  std::vector<double> curve;  // cumulative regret per agent at every `every` rounds
};

// The agents of `task` on `world` for o.rounds rounds. `done` counts
// agent-rounds for the progress bar.
RunResult run_one(const Options& o, const Task& task, const World& world,
                  std::atomic<uint64_t>* done);

// The TeamSpec of an algorithm at epsilon.
TeamSpec team_spec(const Options& o, const Task& task);

// One P-FCB posting on the wire, "P2BX" | varint length | Posting | 64-byte
// Ed25519 signature, the Posting holding the share body sealed with a
// 16-byte AEAD tag: the relay's pfcb::posting_wire_size(m), which the
// simulator charges. This recomputes it from proto/p2b_pfcb.proto's framing,
// field by field, so a test can hold the two to each other.
std::size_t posting_wire_size_from_proto(uint32_t producers);

}  // namespace p2b::pfcb_sim
