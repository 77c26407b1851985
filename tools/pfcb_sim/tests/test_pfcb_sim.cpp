// p2b-sim --protocol pfcb's building blocks. The exactness check: n
// CmabAgents sharing exact counts (eps = infinity) every round, accepting
// every report at weight 1, make FCB's decisions, decision for decision.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "pfcb/wire/pfcb_wire.hpp"
#include "pfcb_sim/run.hpp"
#include "pfcb_sim/run_table.hpp"
#include "pfcb_sim/team.hpp"
#include "pfcb_sim/world.hpp"

namespace p2b::pfcb_sim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

InstanceSpec small_instance(uint64_t seed, bool homogeneous) {
  InstanceSpec s;
  s.producers = 8;
  s.agents = 4;
  s.dist = seed % 2 == 0 ? Dist::uniform : Dist::normal;
  s.homogeneous = homogeneous;
  s.seed = seed;
  return s;
}

TeamSpec exact_sharing(uint64_t horizon) {
  TeamSpec t;
  t.horizon = horizon;
  t.schedule = CmabSchedule::every_round;
  t.window_start = 1;
  t.window_stop = horizon;
  t.epsilon = kInf;
  t.omega1 = kInf;
  t.omega2 = 1.0;
  t.seed = 7;
  return t;
}

struct Divergence {
  uint64_t round = 0;  // 0: none
  uint32_t agent = 0;
  uint64_t decisions = 0;  // agent-rounds compared
  uint64_t nonempty = 0;   // of which the agents procured something after exploring
};

// Plays both teams on the same realisations and stops at the first
// decision that differs.
Divergence compare(const World& world, const TeamSpec& spec, uint64_t rounds) {
  std::unique_ptr<Team> agents = make_agent_team(world, spec);
  std::unique_ptr<Team> fcb = make_fcb_team(world, spec);
  const uint32_t m = world.m();
  std::vector<uint32_t> ua(m), uf(m), good(m);
  Divergence d;
  for (uint64_t t = 1; t <= rounds; ++t) {
    for (uint32_t j = 0; j < world.n(); ++j) {
      agents->decide(j, ua.data());
      fcb->decide(j, uf.data());
      ++d.decisions;
      if (ua != uf) {
        d.round = t;
        d.agent = j;
        return d;
      }
      bool any = false;
      for (uint32_t i = 0; i < m; ++i) {
        good[i] = world.good(0, j, i, t, ua[i]);
        any |= ua[i] > 0;
      }
      if (any && t > spec.explore_rounds) ++d.nonempty;
      agents->observe(j, good.data());
      fcb->observe(j, good.data());
    }
    agents->end_round();
    fcb->end_round();
  }
  return d;
}

TEST(PfcbSim, ExactSharingEveryRoundIsFcbHomogeneous) {
  const uint64_t rounds = 1500;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const World world(small_instance(seed, true));
    const Divergence d = compare(world, exact_sharing(rounds), rounds);
    EXPECT_EQ(d.round, 0U) << "seed " << seed << ": agent " << d.agent << " differs at round "
                           << d.round;
    EXPECT_EQ(d.decisions, rounds * world.n());
    // The comparison means something only if the oracle chose real mixes.
    EXPECT_GT(d.nonempty, d.decisions / 2) << "seed " << seed;
  }
}

// Quality is common to all agents, so pooling exact counts is FCB whatever
// each agent's costs and capacities.
TEST(PfcbSim, ExactSharingEveryRoundIsFcbHeterogeneous) {
  const uint64_t rounds = 1000;
  for (uint64_t seed = 11; seed <= 14; ++seed) {
    const World world(small_instance(seed, false));
    const Divergence d = compare(world, exact_sharing(rounds), rounds);
    EXPECT_EQ(d.round, 0U) << "seed " << seed << ": agent " << d.agent << " differs at round "
                           << d.round;
  }
}

// The check can fail: any departure from FCB's sharing (weight 10 on
// others' counts, or sharing only at the paper's rounds) shows up as a
// different decision.
TEST(PfcbSim, TheComparisonSeesADifferentSharingRule) {
  const uint64_t rounds = 1500;
  const World world(small_instance(3, true));
  TeamSpec weighted = exact_sharing(rounds);
  weighted.omega2 = 10.0;
  EXPECT_NE(compare(world, weighted, rounds).round, 0U);
  TeamSpec sparse = exact_sharing(rounds);
  sparse.schedule = CmabSchedule::paper;
  sparse.window_start = 200;
  EXPECT_NE(compare(world, sparse, rounds).round, 0U);
}

TEST(PfcbSim, RealisationsAreCommonAndMonotoneInUnits) {
  const World world(small_instance(5, false));
  for (uint32_t i = 0; i < world.m(); ++i) {
    for (uint64_t t = 1; t <= 200; ++t) {
      uint32_t last = 0;
      for (uint32_t l = 0; l <= 50; ++l) {
        const uint32_t x = world.good(3, 1, i, t, l);
        EXPECT_EQ(x, world.good(3, 1, i, t, l));  // the same key, the same draw
        EXPECT_LE(x, l);
        EXPECT_GE(x, last);
        last = x;
      }
    }
  }
  // The simulator's fast path (a stream per agent, a CDF table) gives the
  // same draws, including capacities past the table.
  for (uint32_t j = 0; j < world.n(); ++j) {
    const uint64_t stream = world.stream(3, j);
    for (uint32_t i = 0; i < world.m(); ++i) {
      for (uint64_t t = 1; t <= 300; ++t) {
        for (uint32_t l : {0U, 1U, 2U, 7U, 25U, 49U, 50U, 51U, 80U}) {
          ASSERT_EQ(world.good_in(stream, i, t, l), world.good(3, j, i, t, l))
              << "j " << j << " i " << i << " t " << t << " l " << l;
        }
      }
    }
  }
  // Over many draws the good fraction is q.
  double good = 0, units = 0;
  for (uint64_t t = 1; t <= 20000; ++t) {
    good += world.good(0, 0, 2, t, 10);
    units += 10;
  }
  EXPECT_NEAR(good / units, world.quality()[2], 0.01);
}

TEST(PfcbSim, InstancesFollowTheSetting) {
  const World homo(small_instance(8, true));
  const World hetero(small_instance(8, false));
  bool differs = false;
  for (uint32_t j = 1; j < homo.n(); ++j) {
    for (uint32_t i = 0; i < homo.m(); ++i) {
      EXPECT_EQ(homo.cost(j)[i], homo.cost(0)[i]);
      EXPECT_EQ(homo.capacity(j)[i], homo.capacity(0)[i]);
      differs |= hetero.cost(j)[i] != hetero.cost(0)[i];
    }
  }
  EXPECT_TRUE(differs);
  for (uint32_t j = 0; j < hetero.n(); ++j) {
    EXPECT_TRUE(hetero.meets_constraint(hetero.optimum(j).data()));
    EXPECT_EQ(hetero.score(j, hetero.optimum(j).data()).regret, 0.0);
    for (uint32_t i = 0; i < hetero.m(); ++i) {
      EXPECT_GE(hetero.capacity(j)[i], 1U);
      EXPECT_LE(hetero.capacity(j)[i], 50U);
      EXPECT_GE(hetero.cost(j)[i], 0.0);
      EXPECT_LE(hetero.cost(j)[i], 1.0);
    }
  }
}

TEST(PfcbSim, ViolationCosts) {
  InstanceSpec s = small_instance(9, false);
  const World opt(s);
  s.violation = ViolationCost::max_regret;
  const World maxr(s);
  std::vector<uint32_t> all_bad(opt.m(), 0);
  uint32_t bad = 0;
  for (uint32_t i = 0; i < opt.m(); ++i) {
    if (opt.quality()[i] < s.alpha) {
      all_bad[i] = 1;
      ++bad;
    }
  }
  ASSERT_GT(bad, 0U);
  EXPECT_FALSE(opt.meets_constraint(all_bad.data()));
  EXPECT_EQ(opt.score(0, all_bad.data()).regret, opt.optimum_reward(0));
  EXPECT_GE(maxr.score(0, all_bad.data()).regret, opt.optimum_reward(0));
  const std::vector<uint32_t> none(opt.m(), 0);
  EXPECT_TRUE(opt.meets_constraint(none.data()));  // the empty set meets it
}

TEST(PfcbSim, RankStatistics) {
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {10, 8, 5, 1}), -1.0);
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3}, {1, 4, 9}), 1.0);
  EXPECT_NEAR(spearman({1, 2, 3, 4}, {1, 1, 2, 2}), 0.894427191, 1e-9);  // ties
  EXPECT_NEAR(linear_r2({1, 2, 3}, {2, 4, 6}), 1.0, 1e-12);
}

TEST(PfcbSim, PostingSizeFollowsTheFraming) {
  // m = 30: share body 277 B (cmab_share_encoded_size), sealed 293, the
  // Posting 368, framed 4 + 2 + 368 + 64.
  EXPECT_EQ(cmab_share_encoded_size(30), 277U);
  EXPECT_EQ(posting_wire_size_from_proto(30), 438U);
  // The relay's size, which the simulator charges, is the same at every m.
  for (uint32_t m = 1; m <= kCmabMaxProducers; ++m) {
    EXPECT_EQ(pfcb::posting_wire_size(m), posting_wire_size_from_proto(m)) << "m " << m;
  }
}

}  // namespace
}  // namespace p2b::pfcb_sim
