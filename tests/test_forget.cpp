// p2b_agent_forget: the agent unlearns its user but keeps what must outlive
// them (keys, codebook, privacy ledger, model-version floor).
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace {

using p2b_test::base_config;
using p2b_test::make_agent;
using p2b_test::simplex_point;

constexpr uint32_t kDim = 6;
constexpr uint32_t kActions = 4;

// Plays `steps` rewarded decisions on contexts from `rng`.
void play(p2b_agent* agent, std::mt19937_64& rng, int steps) {
  for (int s = 0; s < steps; ++s) {
    const std::vector<float> x = simplex_point(rng, kDim);
    uint32_t action = 0;
    uint64_t id = 0;
    ASSERT_EQ(p2b_agent_decide(agent, x.data(), kDim, &action, &id), P2B_OK);
    ASSERT_EQ(p2b_agent_reward(agent, id, (action % 2 == 0) ? 1.0F : 0.0F), P2B_OK);
  }
}

std::vector<float> all_scores(p2b_agent* agent, const std::vector<float>& x) {
  std::vector<float> mean(kActions), width(kActions), out;
  EXPECT_EQ(p2b_agent_scores(agent, x.data(), kDim, mean.data(), width.data(), kActions), P2B_OK);
  out.insert(out.end(), mean.begin(), mean.end());
  out.insert(out.end(), width.begin(), width.end());
  return out;
}

TEST(Forget, ScoresMatchAFreshAgentAfterLearning) {
  auto learned = make_agent(base_config(kDim, kActions, 16, 3));
  auto fresh = make_agent(base_config(kDim, kActions, 16, 3));
  std::mt19937_64 rng(11);
  play(learned.agent, rng, 40);
  const std::vector<float> probe = simplex_point(rng, kDim);
  ASSERT_NE(all_scores(learned.agent, probe), all_scores(fresh.agent, probe));
  ASSERT_EQ(p2b_agent_forget(learned.agent), P2B_OK);
  for (int i = 0; i < 5; ++i) {
    const std::vector<float> x = simplex_point(rng, kDim);
    EXPECT_EQ(all_scores(learned.agent, x), all_scores(fresh.agent, x));
  }
}

TEST(Forget, PendingDecisionsExpireAndUnsentReportsAreDropped) {
  p2b_config cfg = base_config(kDim, kActions, 16, 5);
  cfg.participation = 0.999;
  cfg.window = 2;
  auto t = make_agent(cfg);
  std::mt19937_64 rng(2);
  play(t.agent, rng, 2);  // closes a window: a report is queued (p ~ 1)
  const std::vector<float> x = simplex_point(rng, kDim);
  uint32_t action = 0;
  uint64_t id = 0;
  ASSERT_EQ(p2b_agent_decide(t.agent, x.data(), kDim, &action, &id), P2B_OK);
  ASSERT_EQ(p2b_agent_forget(t.agent), P2B_OK);
  EXPECT_EQ(p2b_agent_reward(t.agent, id, 1.0F), P2B_ERR_EXPIRED_DECISION);
  p2b_tuple report;
  EXPECT_EQ(p2b_agent_poll_tuple(t.agent, &report), P2B_NO_REPORT);
  // Decision ids keep increasing, so no id from before the forget is reused.
  uint64_t next = 0;
  ASSERT_EQ(p2b_agent_decide(t.agent, x.data(), kDim, &action, &next), P2B_OK);
  EXPECT_GT(next, id);
  EXPECT_EQ(p2b_agent_reward(t.agent, next, 1.0F), P2B_OK);
}

TEST(Forget, KeepsThePrivacyLedger) {
  p2b_config cfg = base_config(kDim, kActions, 16, 9);
  cfg.participation = 0.999;
  cfg.window = 2;
  auto t = make_agent(cfg);
  std::mt19937_64 rng(4);
  play(t.agent, rng, 6);
  p2b_privacy before{}, after{};
  ASSERT_EQ(p2b_agent_privacy(t.agent, &before), P2B_OK);
  ASSERT_GT(before.epsilon_spent, 0.0);
  ASSERT_EQ(p2b_agent_forget(t.agent), P2B_OK);
  ASSERT_EQ(p2b_agent_privacy(t.agent, &after), P2B_OK);
  EXPECT_EQ(after.epsilon_spent, before.epsilon_spent);
  EXPECT_EQ(after.reports, before.reports);
}

TEST(Forget, RefusesNullAndUninitialisedHandles) {
  EXPECT_EQ(p2b_agent_forget(nullptr), P2B_ERR_NULL_POINTER);
  auto junk = p2b_test::aligned_arena(4096);
  std::memset(junk.get(), 0, 4096);
  EXPECT_EQ(p2b_agent_forget(static_cast<p2b_agent*>(junk.get())), P2B_ERR_NOT_INITIALIZED);
}

}  // namespace
