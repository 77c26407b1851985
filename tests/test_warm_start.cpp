// Warm start: importing per-arm statistics reproduces the model that produced
// them, learning continues from there, and bad statistics change nothing.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace {

constexpr uint32_t kDim = 6;
constexpr uint32_t kArms = 3;

struct Stats {
  std::vector<double> a = std::vector<double>(kArms * kDim * kDim);
  std::vector<double> b = std::vector<double>(kArms * kDim);
};

p2b_test::TestAgent trained_agent(int n) {
  auto t = p2b_test::make_agent(p2b_test::base_config(kDim, kArms, 16, 4));
  std::mt19937_64 env(6);
  for (int i = 0; i < n; ++i) {
    const std::vector<float> x = p2b_test::simplex_point(env, kDim);
    const uint32_t a = static_cast<uint32_t>(i % kArms);
    EXPECT_EQ(p2b_agent_learn(t.agent, x.data(), kDim, a, x[a] > 0.2F ? 1.0F : 0.0F), P2B_OK);
  }
  return t;
}

Stats exported(const p2b_agent* agent) {
  Stats s;
  EXPECT_EQ(p2b_agent_export(agent, s.a.data(), s.b.data(), kArms, kDim), P2B_OK);
  return s;
}

void expect_same_scores(p2b_agent* x_agent, p2b_agent* y_agent, double tol) {
  p2b_test::expect_same_scores(x_agent, y_agent, kDim, kArms, tol, 50);
}

TEST(WarmStart, ImportedGramReproducesTheSourceModel) {
  auto src = trained_agent(3000);
  const Stats s = exported(src.agent);
  auto warm = p2b_test::make_agent(p2b_test::base_config(kDim, kArms, 16, 4));
  ASSERT_EQ(p2b_agent_import(warm.agent, s.a.data(), s.b.data(), kArms, kDim, P2B_STATS_GRAM),
            P2B_OK);
  expect_same_scores(src.agent, warm.agent, 1e-4);
}

TEST(WarmStart, ImportedCholeskyFactorIsEquivalent) {
  auto src = trained_agent(500);
  const Stats s = exported(src.agent);
  // Factor each A in double by hand: lower L with A = L L^T.
  std::vector<double> l(s.a.size(), 0.0);
  for (uint32_t arm = 0; arm < kArms; ++arm) {
    const double* a = s.a.data() + arm * kDim * kDim;
    double* out = l.data() + arm * kDim * kDim;
    for (uint32_t j = 0; j < kDim; ++j) {
      double diag = a[j * kDim + j];
      for (uint32_t k = 0; k < j; ++k) diag -= out[k * kDim + j] * out[k * kDim + j];
      out[j * kDim + j] = std::sqrt(diag);
      for (uint32_t i = j + 1; i < kDim; ++i) {
        double v = a[j * kDim + i];
        for (uint32_t k = 0; k < j; ++k) v -= out[k * kDim + i] * out[k * kDim + j];
        out[j * kDim + i] = v / out[j * kDim + j];
      }
    }
  }
  auto warm = p2b_test::make_agent(p2b_test::base_config(kDim, kArms, 16, 4));
  ASSERT_EQ(p2b_agent_import(warm.agent, l.data(), s.b.data(), kArms, kDim, P2B_STATS_CHOLESKY),
            P2B_OK);
  expect_same_scores(src.agent, warm.agent, 1e-4);
}

TEST(WarmStart, LearningContinuesAfterImportAsIfUninterrupted) {
  auto uninterrupted = trained_agent(1000);
  auto src = trained_agent(1000);
  auto warm = p2b_test::make_agent(p2b_test::base_config(kDim, kArms, 16, 4));
  const Stats s = exported(src.agent);
  ASSERT_EQ(p2b_agent_import(warm.agent, s.a.data(), s.b.data(), kArms, kDim, P2B_STATS_GRAM),
            P2B_OK);
  std::mt19937_64 env(12);
  for (int i = 0; i < 500; ++i) {
    const std::vector<float> x = p2b_test::simplex_point(env, kDim);
    ASSERT_EQ(p2b_agent_learn(uninterrupted.agent, x.data(), kDim, 1, 1.0F), P2B_OK);
    ASSERT_EQ(p2b_agent_learn(warm.agent, x.data(), kDim, 1, 1.0F), P2B_OK);
  }
  expect_same_scores(uninterrupted.agent, warm.agent, 1e-4);
}

class WarmStartRejection : public ::testing::Test {
 protected:
  void SetUp() override {
    target_ = trained_agent(200);
    good_ = exported(trained_agent(900).agent);
    before_ = p2b_test::saved(target_.agent);
  }
  p2b_status import(const Stats& s, uint32_t form = P2B_STATS_GRAM) {
    return p2b_agent_import(target_.agent, s.a.data(), s.b.data(), kArms, kDim, form);
  }
  void expect_unchanged() { EXPECT_EQ(p2b_test::saved(target_.agent), before_); }
  p2b_test::TestAgent target_;
  Stats good_;
  std::vector<uint8_t> before_;
};

TEST_F(WarmStartRejection, IndefiniteMatrixInTheLastArmRejectsAll) {
  Stats bad = good_;
  double* last = bad.a.data() + (kArms - 1) * kDim * kDim;
  last[0] = -1.0;  // A_00 < 0: not positive definite
  EXPECT_EQ(import(bad), P2B_ERR_NOT_POSITIVE_DEFINITE);
  expect_unchanged();
}

TEST_F(WarmStartRejection, AsymmetricMatrixIsRejected) {
  Stats bad = good_;
  bad.a[1] += 0.5;  // A_10 != A_01
  EXPECT_EQ(import(bad), P2B_ERR_NOT_POSITIVE_DEFINITE);
  expect_unchanged();
}

TEST_F(WarmStartRejection, NonFiniteValuesAreRejected) {
  Stats bad = good_;
  bad.b[4] = NAN;
  EXPECT_EQ(import(bad), P2B_ERR_NON_FINITE);
  bad = good_;
  bad.a[7] = INFINITY;
  EXPECT_EQ(import(bad), P2B_ERR_NON_FINITE);
  expect_unchanged();
}

TEST_F(WarmStartRejection, FactorWithZeroDiagonalIsRejected) {
  Stats bad;
  for (uint32_t arm = 0; arm < kArms; ++arm) {
    for (uint32_t i = 0; i < kDim; ++i) bad.a[arm * kDim * kDim + i * kDim + i] = 1.0;
  }
  bad.a[(kArms - 1) * kDim * kDim + 2 * kDim + 2] = 0.0;
  EXPECT_EQ(import(bad, P2B_STATS_CHOLESKY), P2B_ERR_NOT_POSITIVE_DEFINITE);
  expect_unchanged();
}

TEST_F(WarmStartRejection, WrongShapesAndFormsAreRejected) {
  EXPECT_EQ(p2b_agent_import(target_.agent, good_.a.data(), good_.b.data(), kArms + 1, kDim,
                             P2B_STATS_GRAM),
            P2B_ERR_DIMENSION_MISMATCH);
  EXPECT_EQ(p2b_agent_import(target_.agent, good_.a.data(), good_.b.data(), kArms, kDim - 1,
                             P2B_STATS_GRAM),
            P2B_ERR_DIMENSION_MISMATCH);
  EXPECT_EQ(import(good_, 7), P2B_ERR_BAD_CONFIG);
  expect_unchanged();
}

}  // namespace

namespace {

// Found by fuzz_state: a factor inside the accepted bounds could be pushed
// out of them by one update, leaving a state the agent's own restore refuses.
// Such an update is refused instead, and nothing changes.
TEST(WarmStart, UpdatesThatWouldLeaveTheSavableRangeAreRefused) {
  auto t = p2b_test::make_agent(p2b_test::base_config(kDim, kArms, 16, 4));
  std::vector<double> l(kArms * kDim * kDim, 0.0), b(kArms * kDim, 0.0);
  for (uint32_t arm = 0; arm < kArms; ++arm) {
    for (uint32_t i = 0; i < kDim; ++i) l[(arm * kDim + i) * kDim + i] = 1.0;
  }
  // Arm 0: a tiny diagonal and a last row of huge entries, each within the
  // bounds; one update pushes the last row's norm past them.
  for (uint32_t i = 0; i < kDim; ++i) l[i * kDim + i] = 2e-4;
  for (uint32_t j = 0; j + 1 < kDim; ++j) l[j * kDim + (kDim - 1)] = 9e14;
  ASSERT_EQ(p2b_agent_import(t.agent, l.data(), b.data(), kArms, kDim, P2B_STATS_CHOLESKY), P2B_OK);
  const std::vector<uint8_t> before = p2b_test::saved(t.agent);
  const std::vector<float> x(kDim, 1.0F);
  EXPECT_EQ(p2b_agent_learn(t.agent, x.data(), kDim, 0, 1.0F), P2B_ERR_NUMERIC_RANGE);
  uint32_t action = 0;
  uint64_t id = 0;
  int refused = 0;
  for (int i = 0; i < 3 * static_cast<int>(kArms); ++i) {
    ASSERT_EQ(p2b_agent_decide(t.agent, x.data(), kDim, &action, &id), P2B_OK);
    const p2b_status s = p2b_agent_reward(t.agent, id, 1.0F);
    ASSERT_TRUE(s == P2B_OK || (s == P2B_ERR_NUMERIC_RANGE && action == 0)) << s;
    refused += s == P2B_ERR_NUMERIC_RANGE ? 1 : 0;
  }
  EXPECT_GT(refused, 0);
  // Whatever happened, the agent's state still restores.
  const std::vector<uint8_t> after = p2b_test::saved(t.agent);
  auto other = p2b_test::make_agent(p2b_test::base_config(kDim, kArms, 16, 4));
  EXPECT_EQ(p2b_agent_restore(other.agent, p2b_test::test_state_key(), after.data(), after.size()),
            P2B_OK);
  EXPECT_NE(before, after);  // the other arms did learn
}

}  // namespace
