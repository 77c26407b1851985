// The shared-parameter model against a plain double-precision reference
// (dense A, solved from scratch each time), its tie rule, its bad-input
// statuses, and its saved state.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "p2b.h"
#include "p2b/shared_model.hpp"
#include "triangular.hpp"

namespace {

using Mat = Eigen::MatrixXd;
using Vec = Eigen::VectorXd;

const uint8_t kKey[P2B_STATE_KEY_BYTES] = {7, 1, 7};

struct Model {
  std::vector<unsigned char> arena;
  p2b_shared_model* m = nullptr;
};

p2b_shared_config config(uint32_t d, uint32_t k, uint32_t precision = P2B_PRECISION_F64,
                         uint32_t policy = P2B_POLICY_LINUCB) {
  p2b_shared_config c;
  EXPECT_EQ(p2b_shared_config_default(&c), P2B_OK);
  c.dim = d;
  c.max_items = k;
  c.precision = precision;
  c.policy = policy;
  c.alpha = 0.5;
  c.ts_scale = 0.01;
  c.rng_mode = P2B_RNG_SEEDED;
  c.seed = 11;
  return c;
}

// The arena is over-allocated so that its start can be aligned by hand.
Model make(const p2b_shared_config& c) {
  Model out;
  size_t need = 0;
  EXPECT_EQ(p2b_shared_model_footprint(&c, &need), P2B_OK);
  out.arena.assign(need + P2B_ARENA_ALIGN, 0);
  auto addr = reinterpret_cast<uintptr_t>(out.arena.data());
  void* mem = out.arena.data() + (P2B_ARENA_ALIGN - addr % P2B_ARENA_ALIGN) % P2B_ARENA_ALIGN;
  EXPECT_EQ(p2b_shared_model_init(mem, need, &c, &out.m), P2B_OK);
  return out;
}

std::vector<uint8_t> saved(const p2b_shared_model* m) {
  size_t n = 0;
  EXPECT_EQ(p2b_shared_model_save_size(m, &n), P2B_OK);
  std::vector<uint8_t> buf(n);
  size_t written = 0;
  EXPECT_EQ(p2b_shared_model_save(m, kKey, buf.data(), buf.size(), &written), P2B_OK);
  EXPECT_EQ(written, n);
  return buf;
}

// l2-normalised Gaussian rows, as seed 003's synthetic contexts.
std::vector<double> unit_rows(std::mt19937_64& rng, size_t rows, size_t d) {
  std::normal_distribution<double> g(0.0, std::sqrt(0.05));
  std::vector<double> x(rows * d);
  for (size_t r = 0; r < rows; ++r) {
    double n2 = 0.0;
    for (size_t i = 0; i < d; ++i) {
      x[r * d + i] = g(rng);
      n2 += x[r * d + i] * x[r * d + i];
    }
    for (size_t i = 0; i < d; ++i) x[r * d + i] /= std::sqrt(n2);
  }
  return x;
}

struct Reference {
  Mat a;
  Vec b;
  explicit Reference(size_t d, double lambda) : a(Mat::Identity(d, d) * lambda), b(Vec::Zero(d)) {}
  void learn(const double* x, double r) {
    const Eigen::Map<const Vec> v(x, b.size());
    a += v * v.transpose();
    b += r * v;
  }
  Vec theta() const { return a.llt().solve(b); }
  double width(const double* x) const {
    const Eigen::Map<const Vec> v(x, b.size());
    return std::sqrt(v.dot(a.llt().solve(v)));
  }
};

void expect_near_rel(double got, double want, double tol, const char* what, size_t i) {
  EXPECT_LE(std::fabs(got - want), tol * std::fmax(1.0, std::fabs(want)))
      << what << " of item " << i << ": " << got << " vs " << want;
}

class AgainstReference : public ::testing::TestWithParam<std::tuple<uint32_t, uint32_t>> {};

// Every score part and theta track the dense double reference: to 1e-9 in
// f64 (after 400 updates the factor's rounding is ~1e-13), to 2e-4 in f32.
TEST_P(AgainstReference, ScoresAndThetaMatchADenseDoubleReference) {
  const auto [d, precision] = GetParam();
  constexpr uint32_t kItems = 8;
  Model m = make(config(d, kItems, precision));
  Reference ref(d, 1.0);
  std::mt19937_64 rng(d * 31 + precision);
  std::normal_distribution<double> noise(0.0, 0.05);
  const double tol = precision == P2B_PRECISION_F64 ? 1e-9 : 2e-4;
  for (int round = 0; round < 400; ++round) {
    const std::vector<double> x = unit_rows(rng, 1, d);
    const double r = x[0] + noise(rng);
    ASSERT_EQ(p2b_shared_model_learn(m.m, x.data(), d, r), P2B_OK);
    ref.learn(x.data(), r);
  }
  const std::vector<double> items = unit_rows(rng, kItems, d);
  std::vector<double> mean(kItems), width(kItems), total(kItems);
  ASSERT_EQ(p2b_shared_model_scores(m.m, items.data(), kItems, d, mean.data(), width.data(),
                                    total.data()),
            P2B_OK);
  const Vec theta = ref.theta();
  for (size_t i = 0; i < kItems; ++i) {
    const Eigen::Map<const Vec> v(items.data() + i * d, d);
    const double want_mean = theta.dot(v);
    const double want_width = ref.width(items.data() + i * d);
    expect_near_rel(mean[i], want_mean, tol, "mean", i);
    expect_near_rel(width[i], want_width, tol, "width", i);
    expect_near_rel(total[i], want_mean + 0.5 * want_width, tol, "total", i);
  }
  std::vector<double> got(d);
  ASSERT_EQ(p2b_shared_model_theta(m.m, got.data(), d), P2B_OK);
  for (size_t i = 0; i < d; ++i) expect_near_rel(got[i], theta[i], tol, "theta", i);
}

INSTANTIATE_TEST_SUITE_P(Sizes, AgainstReference,
                         ::testing::Combine(::testing::Values(5U, 100U, 300U),
                                            ::testing::Values(uint32_t{P2B_PRECISION_F64},
                                                              uint32_t{P2B_PRECISION_F32})));

// LinUCB decides the reference's pick under the same tie rule (the first
// rounds are exact ties, which only a rule decides the same way in both),
// and the reward of a decision is the update of its item's context.
TEST(SharedModel, DecideTakesTheArgmaxAndRewardLearnsTheChosenContext) {
  constexpr uint32_t d = 12;
  constexpr uint32_t k = 6;
  constexpr double kTie = 1e-9;
  p2b_shared_config c = config(d, k);
  c.tie_rel_tol = kTie;
  Model m = make(c);
  Reference ref(d, 1.0);
  std::mt19937_64 rng(5);
  for (int round = 0; round < 300; ++round) {
    const std::vector<double> items = unit_rows(rng, k, d);
    const Vec theta = ref.theta();
    std::vector<double> totals(k);
    double best_total = -1e300;
    for (size_t i = 0; i < k; ++i) {
      totals[i] = theta.dot(Eigen::Map<const Vec>(items.data() + i * d, d)) +
                  0.5 * ref.width(items.data() + i * d);
      best_total = std::fmax(best_total, totals[i]);
    }
    size_t best = 0;
    while (totals[best] < best_total - kTie * std::fmax(1.0, std::fabs(best_total))) ++best;
    uint32_t item = 99;
    uint64_t id = 0;
    ASSERT_EQ(p2b_shared_model_decide(m.m, items.data(), k, d, &item, &id), P2B_OK);
    ASSERT_EQ(item, best) << "round " << round;
    const double r = items[item * d] > 0 ? 1.0 : -0.5;
    ASSERT_EQ(p2b_shared_model_reward(m.m, id, r), P2B_OK);
    ref.learn(items.data() + item * d, r);
  }
}

// At the start theta = 0 and every unit-norm item scores alpha exactly in
// real arithmetic; rounding makes the scores differ in the last bits. With a
// tolerance they are all tied and the lowest index wins; without one the
// pick follows the rounding.
TEST(SharedModel, ScoresWithinTheTieToleranceGoToTheLowestIndex) {
  constexpr uint32_t d = 40;
  constexpr uint32_t k = 10;
  std::mt19937_64 rng(9);
  const std::vector<double> items = unit_rows(rng, k, d);
  p2b_shared_config tied = config(d, k);
  tied.tie_rel_tol = 1e-9;
  Model with = make(tied);
  uint32_t item = 99;
  uint64_t id = 0;
  ASSERT_EQ(p2b_shared_model_decide(with.m, items.data(), k, d, &item, &id), P2B_OK);
  EXPECT_EQ(item, 0U);

  Model exact = make(config(d, k));
  std::vector<double> total(k);
  ASSERT_EQ(p2b_shared_model_scores(exact.m, items.data(), k, d, nullptr, nullptr, total.data()),
            P2B_OK);
  size_t argmax = 0;
  for (size_t i = 1; i < k; ++i) argmax = total[i] > total[argmax] ? i : argmax;
  ASSERT_EQ(p2b_shared_model_decide(exact.m, items.data(), k, d, &item, &id), P2B_OK);
  EXPECT_EQ(item, argmax);
  for (size_t i = 0; i < k; ++i) EXPECT_NEAR(total[i], 0.5, 1e-12);
}

// Each bad input has its own status, and none of them changes the state.
TEST(SharedModel, BadInputGetsADistinctStatusAndLeavesTheStateAlone) {
  constexpr uint32_t d = 4;
  constexpr uint32_t k = 3;
  Model m = make(config(d, k));
  std::vector<double> items = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
  uint32_t item = 0;
  uint64_t id = 0;
  ASSERT_EQ(p2b_shared_model_decide(m.m, items.data(), k, d, &item, &id), P2B_OK);
  const std::vector<uint8_t> before = saved(m.m);
  EXPECT_EQ(p2b_shared_model_decide(m.m, items.data(), k, d + 1, &item, &id),
            P2B_ERR_DIMENSION_MISMATCH);
  EXPECT_EQ(p2b_shared_model_decide(m.m, items.data(), 0, d, &item, &id), P2B_ERR_ITEM_COUNT);
  EXPECT_EQ(p2b_shared_model_decide(m.m, items.data(), k + 1, d, &item, &id), P2B_ERR_ITEM_COUNT);
  EXPECT_EQ(p2b_shared_model_decide(m.m, nullptr, k, d, &item, &id), P2B_ERR_NULL_POINTER);
  items[5] = NAN;
  items[9] = 2e6;
  EXPECT_EQ(p2b_shared_model_decide(m.m, items.data(), k, d, &item, &id), P2B_ERR_NON_FINITE);
  items[5] = 1;
  EXPECT_EQ(p2b_shared_model_decide(m.m, items.data(), k, d, &item, &id), P2B_ERR_NUMERIC_RANGE);
  EXPECT_EQ(p2b_shared_model_reward(m.m, id, NAN), P2B_ERR_REWARD_OUT_OF_RANGE);
  EXPECT_EQ(p2b_shared_model_reward(m.m, id, 2e6), P2B_ERR_REWARD_OUT_OF_RANGE);
  EXPECT_EQ(p2b_shared_model_reward(m.m, id + 1, 1.0), P2B_ERR_UNKNOWN_DECISION);
  EXPECT_EQ(p2b_shared_model_reward(m.m, 0, 1.0), P2B_ERR_UNKNOWN_DECISION);
  EXPECT_EQ(p2b_shared_model_learn(m.m, items.data(), d, 1.0), P2B_OK - 0);  // row 0 is valid
  EXPECT_EQ(p2b_shared_model_restore(m.m, kKey, before.data(), before.size()), P2B_OK);
  EXPECT_EQ(saved(m.m), before);
  unsigned char junk[64] = {0};
  EXPECT_EQ(p2b_shared_model_decide(reinterpret_cast<p2b_shared_model*>(junk), items.data(), k, d,
                                    &item, &id),
            P2B_ERR_NOT_INITIALIZED);
  EXPECT_EQ(saved(m.m), before);
  ASSERT_EQ(p2b_shared_model_reward(m.m, id, 1.0), P2B_OK);
  EXPECT_EQ(p2b_shared_model_reward(m.m, id, 1.0), P2B_ERR_ALREADY_REWARDED);
}

TEST(SharedModel, ADecisionOlderThanThePendingRingHasExpired) {
  p2b_shared_config c = config(2, 2);
  c.pending_capacity = 3;
  Model m = make(c);
  const double items[4] = {1, 0, 0, 1};
  uint32_t item = 0;
  uint64_t first = 0;
  uint64_t id = 0;
  ASSERT_EQ(p2b_shared_model_decide(m.m, items, 2, 2, &item, &first), P2B_OK);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(p2b_shared_model_decide(m.m, items, 2, 2, &item, &id), 0);
  EXPECT_EQ(p2b_shared_model_reward(m.m, first, 1.0), P2B_ERR_EXPIRED_DECISION);
  EXPECT_EQ(p2b_shared_model_reward(m.m, id, 1.0), P2B_OK);
}

TEST(SharedModel, ConfigOutOfRangeIsRefused) {
  size_t n = 0;
  p2b_shared_config c = config(4, 3);
  c.dim = P2B_SHARED_MAX_DIM + 1;
  EXPECT_EQ(p2b_shared_model_footprint(&c, &n), P2B_ERR_BAD_CONFIG);
  c = config(4, 3);
  c.tie_rel_tol = -1e-9;
  EXPECT_EQ(p2b_shared_model_footprint(&c, &n), P2B_ERR_BAD_CONFIG);
  c = config(4, 3);
  c.precision = 2;
  EXPECT_EQ(p2b_shared_model_footprint(&c, &n), P2B_ERR_BAD_CONFIG);
  c = config(4, 0);
  EXPECT_EQ(p2b_shared_model_footprint(&c, &n), P2B_ERR_BAD_CONFIG);
  c = config(4, 3);
  c.ridge_lambda = 0.0;
  EXPECT_EQ(p2b_shared_model_footprint(&c, &n), P2B_ERR_BAD_CONFIG);
}

// Decisions whiten items four at a time (interleaved); scores() and the
// reference arithmetic whiten one at a time. They must agree bit for bit, or
// decide could break a tie differently from what scores() shows.
template <typename T>
void expect_grouped_whitening_is_bit_identical() {
  constexpr uint32_t d = 37;
  constexpr uint32_t G = 4;
  std::mt19937_64 rng(17);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<T> L(static_cast<size_t>(d) * d, T(0));
  for (uint32_t j = 0; j < d; ++j) {
    for (uint32_t i = j; i < d; ++i) {
      L[j * d + i] = static_cast<T>(i == j ? 1.0 + std::fabs(g(rng)) : 0.3 * g(rng));
    }
  }
  std::vector<T> x(static_cast<size_t>(G) * d);
  for (T& v : x) v = static_cast<T>(g(rng));
  std::vector<T> inter(static_cast<size_t>(G) * d);
  for (uint32_t k = 0; k < G; ++k) {
    for (uint32_t r = 0; r < d; ++r) inter[r * G + k] = x[k * d + r];
  }
  p2b::tri_whiten_interleaved<T, G>(L.data(), d, inter.data());
  std::vector<T> one(d);
  for (uint32_t k = 0; k < G; ++k) {
    p2b::tri_whiten(L.data(), d, x.data() + k * d, one.data());
    for (uint32_t r = 0; r < d; ++r) {
      ASSERT_EQ(one[r], inter[r * G + k]) << "vector " << k << " row " << r;
    }
  }
}

TEST(SharedModel, GroupedWhiteningIsBitIdenticalToOneAtATime) {
  expect_grouped_whitening_is_bit_identical<double>();
  expect_grouped_whitening_is_bit_identical<float>();
}

class SharedState : public ::testing::TestWithParam<std::tuple<uint32_t, uint32_t>> {};

// A restored model continues exactly as the original: same items, same
// statistics, and (LinTS) the same random stream.
TEST_P(SharedState, RestoreContinuesBitForBit) {
  const auto [policy, precision] = GetParam();
  constexpr uint32_t d = 9;
  constexpr uint32_t k = 5;
  const p2b_shared_config c = config(d, k, precision, policy);
  Model a = make(c);
  std::mt19937_64 rng(3);
  std::vector<uint64_t> open;
  for (int i = 0; i < 40; ++i) {
    const std::vector<double> items = unit_rows(rng, k, d);
    uint32_t item = 0;
    uint64_t id = 0;
    ASSERT_EQ(p2b_shared_model_decide(a.m, items.data(), k, d, &item, &id), P2B_OK);
    if (i % 3 == 0) {
      open.push_back(id);
    } else {
      ASSERT_EQ(p2b_shared_model_reward(a.m, id, items[item * d]), P2B_OK);
    }
  }
  const std::vector<uint8_t> blob = saved(a.m);
  EXPECT_EQ(blob.size(), 164 + 4 * d * (d + 1) + 8 * d + 16 * (16 + 8 * d));
  Model b = make(c);
  ASSERT_EQ(p2b_shared_model_restore(b.m, kKey, blob.data(), blob.size()), P2B_OK);
  EXPECT_EQ(saved(b.m), blob);
  for (int i = 0; i < 30; ++i) {
    const std::vector<double> items = unit_rows(rng, k, d);
    uint32_t ia = 0;
    uint32_t ib = 1;
    uint64_t id_a = 0;
    uint64_t id_b = 0;
    ASSERT_EQ(p2b_shared_model_decide(a.m, items.data(), k, d, &ia, &id_a), P2B_OK);
    ASSERT_EQ(p2b_shared_model_decide(b.m, items.data(), k, d, &ib, &id_b), P2B_OK);
    ASSERT_EQ(ia, ib);
    ASSERT_EQ(id_a, id_b);
    ASSERT_EQ(p2b_shared_model_reward(a.m, id_a, 0.3), P2B_OK);
    ASSERT_EQ(p2b_shared_model_reward(b.m, id_b, 0.3), P2B_OK);
  }
  EXPECT_EQ(saved(a.m), saved(b.m));
}

INSTANTIATE_TEST_SUITE_P(Policies, SharedState,
                         ::testing::Combine(::testing::Values(uint32_t{P2B_POLICY_LINUCB},
                                                              uint32_t{P2B_POLICY_LINTS}),
                                            ::testing::Values(uint32_t{P2B_PRECISION_F64},
                                                              uint32_t{P2B_PRECISION_F32})));

// Every bit flip is refused (the MAC), a state of another configuration is a
// mismatch, and an impossible value under a valid MAC is corrupt.
TEST(SharedStateRejection, EditsOtherConfigsAndImpossibleValuesAreRefused) {
  constexpr uint32_t d = 3;
  const p2b_shared_config c = config(d, 2);
  Model a = make(c);
  const double items[6] = {1, 0, 0, 0, 1, 0};
  uint32_t item = 0;
  uint64_t id = 0;
  ASSERT_EQ(p2b_shared_model_decide(a.m, items, 2, d, &item, &id), P2B_OK);
  ASSERT_EQ(p2b_shared_model_reward(a.m, id, 1.0), P2B_OK);
  const std::vector<uint8_t> blob = saved(a.m);
  Model b = make(c);
  const std::vector<uint8_t> fresh = saved(b.m);
  for (size_t bit = 0; bit < blob.size() * 8; ++bit) {
    std::vector<uint8_t> bad = blob;
    bad[bit / 8] ^= static_cast<uint8_t>(1U << (bit % 8));
    ASSERT_NE(p2b_shared_model_restore(b.m, kKey, bad.data(), bad.size()), P2B_OK) << bit;
  }
  EXPECT_EQ(saved(b.m), fresh);
  p2b_shared_config other = c;
  other.alpha = 0.7;
  Model o = make(other);
  EXPECT_EQ(p2b_shared_model_restore(o.m, kKey, blob.data(), blob.size()), P2B_ERR_STATE_MISMATCH);
  uint8_t wrong_key[P2B_STATE_KEY_BYTES] = {1};
  EXPECT_EQ(p2b_shared_model_restore(b.m, wrong_key, blob.data(), blob.size()),
            P2B_ERR_CORRUPT_STATE);
  EXPECT_EQ(saved(b.m), fresh);
}

}  // namespace
