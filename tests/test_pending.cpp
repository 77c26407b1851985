// Pending decisions: rewards may arrive late and out of order; ids that are
// unknown, expired or already rewarded are told apart.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace {

constexpr uint32_t kDim = 4;

p2b_test::TestAgent small_agent(uint32_t capacity) {
  p2b_config cfg = p2b_test::base_config(kDim, 3, 8, 5);
  cfg.pending_capacity = capacity;
  return p2b_test::make_agent(cfg);
}

uint64_t decide(p2b_agent* agent) {
  const float x[kDim] = {1, 2, 3, 4};
  uint32_t a = 0;
  uint64_t id = 0;
  EXPECT_EQ(p2b_agent_decide(agent, x, kDim, &a, &id), P2B_OK);
  return id;
}

TEST(Pending, RewardsMayArriveOutOfOrder) {
  auto t = small_agent(8);
  std::vector<uint64_t> ids;
  ids.reserve(8);
  for (int i = 0; i < 8; ++i) ids.push_back(decide(t.agent));
  for (int i = 7; i >= 0; i -= 2) EXPECT_EQ(p2b_agent_reward(t.agent, ids[i], 1.0F), P2B_OK);
  for (int i = 0; i < 8; i += 2) EXPECT_EQ(p2b_agent_reward(t.agent, ids[i], 0.0F), P2B_OK);
}

TEST(Pending, OutOfOrderRewardsLearnTheSameModelAsInOrder) {
  auto in_order = small_agent(8);
  auto reversed = small_agent(8);
  std::vector<uint64_t> a_ids, b_ids;
  for (int i = 0; i < 6; ++i) {
    a_ids.push_back(decide(in_order.agent));
    b_ids.push_back(decide(reversed.agent));
  }
  for (int i = 0; i < 6; ++i) {
    ASSERT_EQ(p2b_agent_reward(in_order.agent, a_ids[i], i % 2 ? 1.0F : 0.0F), P2B_OK);
    ASSERT_EQ(p2b_agent_reward(reversed.agent, b_ids[5 - i], (5 - i) % 2 ? 1.0F : 0.0F), P2B_OK);
  }
  std::vector<double> a1(3 * kDim * kDim), b1(3 * kDim), a2(a1.size()), b2(b1.size());
  ASSERT_EQ(p2b_agent_export(in_order.agent, a1.data(), b1.data(), 3, kDim), P2B_OK);
  ASSERT_EQ(p2b_agent_export(reversed.agent, a2.data(), b2.data(), 3, kDim), P2B_OK);
  for (size_t i = 0; i < a1.size(); ++i) EXPECT_NEAR(a1[i], a2[i], 1e-5);
  for (size_t i = 0; i < b1.size(); ++i) EXPECT_NEAR(b1[i], b2[i], 1e-6);
}

TEST(Pending, UnknownIdsAreRejected) {
  auto t = small_agent(4);
  const auto before = p2b_test::saved(t.agent);
  EXPECT_EQ(p2b_agent_reward(t.agent, 0, 1.0F), P2B_ERR_UNKNOWN_DECISION);
  EXPECT_EQ(p2b_agent_reward(t.agent, 1, 1.0F), P2B_ERR_UNKNOWN_DECISION);  // nothing issued
  const uint64_t id = decide(t.agent);
  EXPECT_EQ(p2b_agent_reward(t.agent, id + 1, 1.0F), P2B_ERR_UNKNOWN_DECISION);
  EXPECT_EQ(p2b_agent_reward(t.agent, UINT64_MAX, 1.0F), P2B_ERR_UNKNOWN_DECISION);
  EXPECT_NE(p2b_test::saved(t.agent), before);  // the decide itself did change state
}

TEST(Pending, IdsOlderThanTheRingExpire) {
  auto t = small_agent(4);
  const uint64_t first = decide(t.agent);
  for (int i = 0; i < 3; ++i) decide(t.agent);
  EXPECT_EQ(p2b_agent_reward(t.agent, first, 1.0F), P2B_OK) << "still within capacity";
  const uint64_t second = first + 1;
  decide(t.agent);  // overwrites the slot of `first`, `second` is now the oldest
  decide(t.agent);  // and now `second` is gone too
  const auto before = p2b_test::saved(t.agent);
  EXPECT_EQ(p2b_agent_reward(t.agent, second, 1.0F), P2B_ERR_EXPIRED_DECISION);
  EXPECT_EQ(p2b_agent_reward(t.agent, first, 1.0F), P2B_ERR_EXPIRED_DECISION);
  EXPECT_EQ(p2b_test::saved(t.agent), before);
}

TEST(Pending, SecondRewardIsRejectedAndIgnored) {
  auto t = small_agent(4);
  const uint64_t id = decide(t.agent);
  ASSERT_EQ(p2b_agent_reward(t.agent, id, 1.0F), P2B_OK);
  const auto before = p2b_test::saved(t.agent);
  EXPECT_EQ(p2b_agent_reward(t.agent, id, 1.0F), P2B_ERR_ALREADY_REWARDED);
  EXPECT_EQ(p2b_agent_reward(t.agent, id, 0.0F), P2B_ERR_ALREADY_REWARDED);
  EXPECT_EQ(p2b_test::saved(t.agent), before);
}

TEST(Pending, FreshAgentBreaksTiesRoundRobinNotTowardArmZero) {
  p2b_config cfg = p2b_test::base_config(kDim, 5, 8, 5);
  auto t = p2b_test::make_agent(cfg);
  std::vector<int> counts(5, 0);
  const float x[kDim] = {1, 1, 1, 1};
  for (int i = 0; i < 50; ++i) {
    uint32_t a = 0;
    uint64_t id = 0;
    ASSERT_EQ(p2b_agent_decide(t.agent, x, kDim, &a, &id), P2B_OK);
    ++counts[a];  // never rewarded: every decision sees identical scores
  }
  EXPECT_EQ(counts, std::vector<int>(5, 10));
}

}  // namespace
