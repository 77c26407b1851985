#include "pfcb_sim/run.hpp"

#include <chrono>
#include <cmath>
#include <limits>

#include "pfcb/wire/pfcb_wire.hpp"

namespace p2b::pfcb_sim {

namespace {

std::size_t varint_size(std::size_t v) {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// A length-delimited field with a one-byte tag.
std::size_t bytes_field(std::size_t len) {
  return 1 + varint_size(len) + len;
}

}  // namespace

std::size_t posting_wire_size_from_proto(uint32_t producers) {
  const std::size_t sealed = cmab_share_encoded_size(producers) + 16;  // + Poly1305 tag
  const std::size_t posting = (1 + 4)                                  // format, fixed32
                              + bytes_field(16)                        // consortium_fp
                              + bytes_field(16)                        // sender_fp
                              + (1 + 4)                                // release, fixed32
                              + bytes_field(24)                        // nonce
                              + bytes_field(sealed);                   // sealed_share
  return 4 + varint_size(posting) + posting + 64;
}

TeamSpec team_spec(const Options& o, const Task& task) {
  TeamSpec s = o.team;
  s.horizon = o.rounds;
  // The agents' noise: its own stream per (instance, run, n), the same for
  // every P-FCB variant, so variants differ by their rules, not their luck.
  s.seed = static_cast<uint64_t>(
      keyed_uniform(o.run.seed, task.instance, task.run, task.agents, 0x4e015e, 0) * 0x1.0p53);
  if (task.algorithm == "nf") {
    s.epsilon = 0.0;
  } else if (task.algorithm == "fcb") {
    s.epsilon = std::numeric_limits<double>::infinity();
  } else {
    s.epsilon = task.epsilon;
    if (task.algorithm == "pfcb-aligned") s.schedule = CmabSchedule::aligned;
    if (task.algorithm == "pfcb-accept-all") s.omega1 = std::numeric_limits<double>::infinity();
  }
  return s;
}

RunResult run_one(const Options& o, const Task& task, const World& world,
                  std::atomic<uint64_t>* done) {
  const auto start = std::chrono::steady_clock::now();
  const TeamSpec spec = team_spec(o, task);
  std::unique_ptr<Team> team =
      task.algorithm == "fcb" ? make_fcb_team(world, spec) : make_agent_team(world, spec);
  const uint32_t n = world.n(), m = world.m();
  std::vector<uint32_t> units(m), good(m);
  double regret = 0.0;
  uint64_t met = 0;
  RunResult r;
  r.task = task;
  const uint64_t every = curve_step(o);
  r.curve.reserve(o.rounds / every + 1);
  std::vector<uint64_t> streams(n);
  for (uint32_t j = 0; j < n; ++j) streams[j] = world.stream(task.run, j);
  for (uint64_t t = 1; t <= o.rounds; ++t) {
    for (uint32_t j = 0; j < n; ++j) {
      team->decide(j, units.data());
      for (uint32_t i = 0; i < m; ++i) good[i] = world.good_in(streams[j], i, t, units[i]);
      team->observe(j, good.data());
      const Score s = world.score(j, units.data());
      regret += s.regret;
      met += s.met ? 1 : 0;
    }
    team->end_round();
    if (t % every == 0) r.curve.push_back(regret / n);
    if ((t & 255) == 0) done->fetch_add(256ULL * n, std::memory_order_relaxed);
  }
  r.regret = regret / n;
  r.constraint_met = static_cast<double>(met) / (static_cast<double>(o.rounds) * n);
  const double wire = static_cast<double>(pfcb::posting_wire_size(m));
  for (uint32_t j = 0; j < n; ++j) {
    const Traffic& tr = team->traffic()[j];
    r.postings_sent += static_cast<double>(tr.postings_sent) / n;
    r.postings_received += static_cast<double>(tr.postings_received) / n;
    r.accepted += static_cast<double>(tr.accepted) / n;
    r.rejected += static_cast<double>(tr.rejected) / n;
    r.refused += static_cast<double>(tr.refused) / n;
    r.optimum_reward += world.optimum_reward(j) / n;
    const CmabPrivacy p = team->privacy(j);
    r.privacy.releases = std::max(r.privacy.releases, p.releases);
    r.privacy.paper_epsilon += p.paper_epsilon / n;
    r.privacy.paper_delta += p.paper_delta / n;
    r.privacy.basic_epsilon += p.basic_epsilon / n;
    r.privacy.basic_delta += p.basic_delta / n;
    r.privacy.element_mu += p.element_mu / n;
    r.privacy.element_epsilon += p.element_epsilon / n;
    r.privacy.sequential_mu += p.sequential_mu / n;
    r.privacy.sequential_epsilon += p.sequential_epsilon / n;
    r.privacy.vector_mu += p.vector_mu / n;
    r.privacy.vector_epsilon += p.vector_epsilon / n;
    r.privacy.delta_target = p.delta_target;
  }
  r.bytes_sent = r.postings_sent * wire;
  r.bytes_received = r.postings_received * wire;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace p2b::pfcb_sim
