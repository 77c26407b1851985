// Randomized participation and the privacy accountant (P2B paper, sections 3-4).
#include <gtest/gtest.h>

#include <set>

#include "random.hpp"
#include "test_support.hpp"

namespace {

struct Tally {
  int reports = 0;
  int zero_reward_reports = 0;
};

// Runs n interactions, rewarding with reward_of(step), polling after each.
template <typename RewardFn>
Tally run(p2b_agent* agent, uint32_t d, int n, RewardFn reward_of) {
  std::mt19937_64 env(3);
  Tally t;
  for (int step = 0; step < n; ++step) {
    const std::vector<float> x = p2b_test::simplex_point(env, d);
    uint32_t a = 0;
    uint64_t id = 0;
    EXPECT_EQ(p2b_agent_decide(agent, x.data(), d, &a, &id), P2B_OK);
    EXPECT_EQ(p2b_agent_reward(agent, id, reward_of(step)), P2B_OK);
    p2b_tuple rep;
    while (p2b_agent_poll_tuple(agent, &rep) == P2B_OK) {
      ++t.reports;
      t.zero_reward_reports += rep.reward == 0.0F ? 1 : 0;
    }
  }
  return t;
}

TEST(Reporter, ReportRateIsPOverTWithinFourSigma) {
  const uint32_t d = 5;
  const int n = 100000;
  for (const double p : {0.5, 0.1}) {
    p2b_config cfg = p2b_test::base_config(d, 4, 16, 77);
    cfg.participation = p;
    cfg.window = 10;
    auto t = p2b_test::make_agent(cfg);
    const Tally tally = run(t.agent, d, n, [](int s) { return (s % 2) ? 1.0F : 0.0F; });
    const double windows = static_cast<double>(n) / cfg.window;
    const double expected = p * windows;
    const double sigma = std::sqrt(windows * p * (1 - p));
    EXPECT_NEAR(tally.reports, expected, 4 * sigma) << "p=" << p;
    std::printf("[ figure ] p=%.2f t=10: %d reports over %d interactions (expected %.0f +- %.0f)\n",
                p, tally.reports, n, expected, sigma);
  }
}

TEST(Reporter, NegRateIsHonouredWhenBothKindsExist) {
  const uint32_t d = 5;
  for (const double neg : {0.05, 0.3}) {
    p2b_config cfg = p2b_test::base_config(d, 4, 16, 78);
    cfg.neg_rate = neg;
    auto t = p2b_test::make_agent(cfg);
    // Every window holds both zero and positive rewards.
    const Tally tally = run(t.agent, d, 200000, [](int s) { return (s % 2) ? 0.5F : 0.0F; });
    const double m = tally.reports;
    EXPECT_NEAR(tally.zero_reward_reports, neg * m, 4 * std::sqrt(m * neg * (1 - neg)))
        << "neg_rate=" << neg;
  }
}

TEST(Reporter, FallsBackToTheKindThatExists) {
  const uint32_t d = 4;
  p2b_config cfg = p2b_test::base_config(d, 3, 8, 79);
  cfg.neg_rate = 1.0;  // always wants a zero-reward tuple...
  auto pos = p2b_test::make_agent(cfg);
  const Tally all_pos = run(pos.agent, d, 5000, [](int) { return 1.0F; });  // ...but has none
  EXPECT_GT(all_pos.reports, 0);
  EXPECT_EQ(all_pos.zero_reward_reports, 0);

  cfg.neg_rate = 0.0;  // always wants a positive one...
  auto zero = p2b_test::make_agent(cfg);
  const Tally all_zero = run(zero.agent, d, 5000, [](int) { return 0.0F; });  // ...none exists
  EXPECT_GT(all_zero.reports, 0);
  EXPECT_EQ(all_zero.zero_reward_reports, all_zero.reports);
}

TEST(Reporter, ReportedTupleComesFromTheClosedWindow) {
  const uint32_t d = 4;
  p2b_config cfg = p2b_test::base_config(d, 6, 16, 80);
  cfg.window = 3;
  cfg.participation = 0.9;
  auto t = p2b_test::make_agent(cfg);
  std::mt19937_64 env(9);
  std::set<std::pair<uint32_t, uint32_t>> window;  // (code, action)
  int checked = 0;
  for (int step = 0; step < 3000; ++step) {
    const std::vector<float> x = p2b_test::simplex_point(env, d);
    uint32_t a = 0, code = 0;
    uint64_t id = 0;
    ASSERT_EQ(p2b_agent_decide(t.agent, x.data(), d, &a, &id), P2B_OK);
    ASSERT_EQ(p2b_agent_encode(t.agent, x.data(), d, &code), P2B_OK);
    ASSERT_EQ(p2b_agent_reward(t.agent, id, 1.0F), P2B_OK);
    window.insert({code, a});
    p2b_tuple rep;
    if (p2b_agent_poll_tuple(t.agent, &rep) == P2B_OK) {
      EXPECT_EQ(window.count({rep.code, rep.action}), 1U);
      ++checked;
    }
    if ((step + 1) % cfg.window == 0) window.clear();
  }
  EXPECT_GT(checked, 800);  // 1000 windows at p = 0.9
}

TEST(Accountant, EpsilonAtHalfIsLn2ToFourDecimals) {
  double eps = 0;
  ASSERT_EQ(p2b_epsilon_per_report(0.5, &eps), P2B_OK);
  EXPECT_NEAR(eps, 0.6931, 5e-5);
  for (const double p : {0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99}) {
    ASSERT_EQ(p2b_epsilon_per_report(p, &eps), P2B_OK);
    EXPECT_NEAR(eps, std::log(p * (2 - p) / (1 - p) + (1 - p)), 1e-14) << "p=" << p;
  }
  EXPECT_EQ(p2b_epsilon_per_report(0.0, &eps), P2B_ERR_BAD_CONFIG);
  EXPECT_EQ(p2b_epsilon_per_report(1.0, &eps), P2B_ERR_BAD_CONFIG);
}

TEST(Accountant, PortableLogMatchesLibm) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 100000; ++i) {
    const double x = std::ldexp(1.0 + static_cast<double>(rng() >> 11) * 0x1.0p-53,
                                static_cast<int>(rng() % 200) - 100);
    const double want = std::log(x);
    EXPECT_LE(std::fabs(p2b::portable_log(x) - want), 4e-16 * std::max(1.0, std::fabs(want))) << x;
  }
}

TEST(Accountant, BudgetStopsReportsAndSaysSo) {
  const uint32_t d = 4;
  p2b_config cfg = p2b_test::base_config(d, 3, 8, 81);
  double eps = 0;
  ASSERT_EQ(p2b_epsilon_per_report(cfg.participation, &eps), P2B_OK);
  cfg.epsilon_budget = 3.5 * eps;  // room for exactly three reports
  auto t = p2b_test::make_agent(cfg);
  const Tally tally = run(t.agent, d, 20000, [](int) { return 1.0F; });
  EXPECT_EQ(tally.reports, 3);
  p2b_tuple rep;
  EXPECT_EQ(p2b_agent_poll_tuple(t.agent, &rep), P2B_BUDGET_EXHAUSTED);
  p2b_privacy ledger;
  ASSERT_EQ(p2b_agent_privacy(t.agent, &ledger), P2B_OK);
  EXPECT_EQ(ledger.reports, 3U);
  EXPECT_EQ(ledger.exhausted, 1);
  EXPECT_NEAR(ledger.epsilon_spent, 3 * eps, 1e-12);
  EXPECT_LE(ledger.epsilon_spent, cfg.epsilon_budget);
  EXPECT_EQ(ledger.windows_closed, 2000U);
}

TEST(Accountant, BudgetOfExactlyMReportsAllowsM) {
  const uint32_t d = 4;
  p2b_config cfg = p2b_test::base_config(d, 3, 8, 82);
  double eps = 0;
  ASSERT_EQ(p2b_epsilon_per_report(cfg.participation, &eps), P2B_OK);
  cfg.epsilon_budget = 5 * eps;
  auto t = p2b_test::make_agent(cfg);
  EXPECT_EQ(run(t.agent, d, 20000, [](int) { return 1.0F; }).reports, 5);
}

TEST(Reporter, FullOutboxDropsWithoutChargingEpsilon) {
  const uint32_t d = 4;
  p2b_config cfg = p2b_test::base_config(d, 3, 8, 83);
  cfg.outbox_capacity = 2;
  cfg.participation = 0.9;
  cfg.window = 1;
  auto t = p2b_test::make_agent(cfg);
  std::mt19937_64 env(4);
  for (int step = 0; step < 100; ++step) {  // never polled
    const std::vector<float> x = p2b_test::simplex_point(env, d);
    uint32_t a = 0;
    uint64_t id = 0;
    ASSERT_EQ(p2b_agent_decide(t.agent, x.data(), d, &a, &id), P2B_OK);
    ASSERT_EQ(p2b_agent_reward(t.agent, id, 1.0F), P2B_OK);
  }
  p2b_privacy ledger;
  ASSERT_EQ(p2b_agent_privacy(t.agent, &ledger), P2B_OK);
  EXPECT_EQ(ledger.reports, 2U);
  EXPECT_GT(ledger.dropped_outbox_full, 50U);
  EXPECT_NEAR(ledger.epsilon_spent, 2 * ledger.epsilon_per_report, 1e-12);
}

}  // namespace
