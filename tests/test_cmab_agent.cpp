// The P-FCB agent through the C API: the release schedule, the budget split
// and its hard stop, the accountant against closed forms and an independent
// numeric integral, the noise's distribution, selective acceptance, replay,
// the share encoding, and unchanged state on every bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include "cmab_fixture.hpp"
#include "p2b.h"
#include "p2b/cmab.hpp"

namespace {

using cmab_fixture::Agent;
using cmab_fixture::config;
using cmab_fixture::make;
using cmab_fixture::play_round;
using cmab_fixture::poll;

constexpr double kInf = std::numeric_limits<double>::infinity();

// Explore forever: decisions never reach the oracle, so these tests see the
// schedule alone.
p2b_cmab_config explore_only(uint32_t m) {
  p2b_cmab_config c = config(m);
  c.explore_rounds = 0xFFFFFFFFU;
  return c;
}

std::vector<uint64_t> release_rounds(p2b_cmab_config c, uint64_t rounds) {
  Agent g = make(c);
  std::vector<uint64_t> out;
  for (uint64_t t = 1; t <= rounds; ++t) {
    play_round(g, c.producers);
    p2b_status st;
    const auto share = poll(g, &st);
    if (st == P2B_OK) {
      p2b::CmabShare s;
      EXPECT_EQ(p2b::cmab_share_decode(share.data(), share.size(), &s), p2b::Status::ok);
      EXPECT_EQ(s.round, t);
      EXPECT_EQ(s.release, out.size() + 1);
      out.push_back(t);
    }
  }
  return out;
}

TEST(CmabSchedule, PaperWindowReleasesAtExactlyTheSixteenRounds) {
  const std::vector<uint64_t> want = {200, 201, 202,  203,  204,  205,  206,   207,
                                      256, 512, 1024, 2048, 4096, 8192, 16384, 32768};
  EXPECT_EQ(release_rounds(explore_only(2), 100000), want);
  EXPECT_EQ(p2b::cmab_release_count(p2b::CmabSchedule::paper, 200, 40000, 100000), 16U);
}

TEST(CmabSchedule, AlignedScheduleDoublesFromTheWindowStart) {
  p2b_cmab_config c = explore_only(2);
  c.schedule = P2B_CMAB_SCHEDULE_ALIGNED;
  const std::vector<uint64_t> want = {200, 400, 800, 1600, 3200, 6400, 12800, 25600};
  EXPECT_EQ(release_rounds(c, 100000), want);
  EXPECT_EQ(p2b::cmab_release_count(p2b::CmabSchedule::aligned, 200, 40000, 100000), 8U);
}

TEST(CmabSchedule, EveryRoundReleasesEachRoundOfTheWindow) {
  p2b_cmab_config c = explore_only(2);
  c.schedule = P2B_CMAB_SCHEDULE_EVERY_ROUND;
  c.epsilon = kInf;
  c.window_start = 3;
  c.window_stop = 9;
  EXPECT_EQ(release_rounds(c, 20), (std::vector<uint64_t>{3, 4, 5, 6, 7, 8, 9}));
}

TEST(CmabBudget, SplitMatchesThePapersClosedForm) {
  for (auto base : {p2b::CmabLogBase::two, p2b::CmabLogBase::natural}) {
    const double log_t = base == p2b::CmabLogBase::two ? std::log2(1e5) : std::log(1e5);
    double sum = 0.0;
    for (uint32_t z = 1; z <= 20; ++z) {
      const double eps_z = p2b::cmab_release_epsilon(1.0, 100000, base, z);
      EXPECT_NEAR(eps_z, 1.0 / (2 * log_t) + std::pow(2.0, -(z + 1.0)), 1e-15);
      sum += eps_z;
      EXPECT_NEAR(p2b::cmab_paper_epsilon_sum(1.0, 100000, base, z), sum, 1e-14);
    }
  }
  // Sixteen releases fit the budget with log2 (0.982 eps) and overspend with
  // ln (1.195 eps): the 1.2x.
  EXPECT_NEAR(p2b::cmab_paper_epsilon_sum(1.0, 100000, p2b::CmabLogBase::two, 16), 0.98166, 1e-4);
  EXPECT_NEAR(p2b::cmab_paper_epsilon_sum(1.0, 100000, p2b::CmabLogBase::natural, 16), 1.19490,
              1e-4);
}

TEST(CmabBudget, NaturalLogStopsAtTheLastReleaseWithinBudget) {
  p2b_cmab_config c = explore_only(2);
  c.log_base = P2B_CMAB_LOG_E;
  // The largest Z with the closed form <= eps.
  uint32_t fits = 0;
  while (p2b::cmab_paper_epsilon_sum(1.0, 100000, p2b::CmabLogBase::natural, fits + 1) <= 1.0) {
    ++fits;
  }
  ASSERT_GT(fits, 0U);
  ASSERT_LT(fits, 16U);
  const auto rounds = release_rounds(c, 40000);
  EXPECT_EQ(rounds.size(), fits);
  // After the stop no share is ever drawn, and the poll says why.
  Agent g = make(c);
  p2b_status last = P2B_OK;
  uint32_t shares = 0;
  for (int t = 1; t <= 40000; ++t) {
    play_round(g, 2);
    (void)poll(g, &last);
    if (last == P2B_OK) ++shares;
  }
  EXPECT_EQ(shares, fits);
  EXPECT_EQ(last, P2B_BUDGET_EXHAUSTED);
  p2b_cmab_privacy p;
  ASSERT_EQ(p2b_cmab_privacy_spent(g.a, &p), P2B_OK);
  EXPECT_LE(p.paper_epsilon, 1.0);
  EXPECT_EQ(p.releases, fits);
}

TEST(CmabBudget, ZeroEpsilonNeverShares) {
  p2b_cmab_config c = explore_only(3);
  c.epsilon = 0.0;
  EXPECT_TRUE(release_rounds(c, 1000).empty());
}

// delta(eps) of mu-GDP by integrating the privacy loss directly:
// E_{x~N(mu,1)} [(1 - e^(eps - L(x)))_+] with L(x) = mu x - mu^2 / 2.
double integrated_delta(double mu, double eps) {
  const double lo = mu - 12.0;
  const double hi = mu + 12.0;
  const int n = 400000;
  const double h = (hi - lo) / n;
  double sum = 0.0;
  for (int i = 0; i <= n; ++i) {
    const double x = lo + i * h;
    const double density = std::exp(-0.5 * (x - mu) * (x - mu)) / std::sqrt(2.0 * M_PI);
    const double loss = mu * x - 0.5 * mu * mu;
    const double gain = 1.0 - std::exp(eps - loss);
    const double f = gain > 0.0 ? gain * density : 0.0;
    sum += (i == 0 || i == n) ? 0.5 * f : f;
  }
  return sum * h;
}

TEST(CmabAccountant, GdpCurveMatchesADirectIntegralOfThePrivacyLoss) {
  for (double mu : {0.1, 0.5, 1.0, 2.0, 4.0}) {
    for (double eps : {0.0, 0.3, 1.0, 3.0}) {
      EXPECT_NEAR(p2b::gdp_delta(mu, eps), integrated_delta(mu, eps), 1e-7)
          << "mu " << mu << " eps " << eps;
    }
    const double eps = p2b::gdp_epsilon(mu, 1e-5);
    EXPECT_NEAR(p2b::gdp_delta(mu, eps), 1e-5, 1e-9);
  }
  EXPECT_EQ(p2b::gdp_epsilon(0.0, 0.01), 0.0);
  EXPECT_TRUE(std::isinf(p2b::gdp_epsilon(kInf, 0.01)));
}

TEST(CmabAccountant, LedgerEqualsHandComputedFiguresAfterEachRelease) {
  p2b_cmab_config c = explore_only(30);
  Agent g = make(c);
  double sum_mu2 = 0.0;
  double first_mu = 0.0;
  uint32_t z = 0;
  for (int t = 1; t <= 40000; ++t) {
    play_round(g, 30);
    p2b_status st;
    (void)poll(g, &st);
    if (st != P2B_OK) continue;
    ++z;
    const double log2_t = std::log2(1e5);
    const double eps_z = 1.0 / (2 * log2_t) + std::pow(2.0, -(z + 1.0));
    const double mu = std::sqrt(2.0) * eps_z / std::sqrt(2.0 * std::log(1.25 / 0.01));
    if (z == 1) first_mu = mu;
    sum_mu2 += mu * mu;
    p2b_cmab_privacy p;
    ASSERT_EQ(p2b_cmab_privacy_spent(g.a, &p), P2B_OK);
    EXPECT_EQ(p.releases, z);
    EXPECT_NEAR(p.paper_epsilon, p2b::cmab_paper_epsilon_sum(1.0, 100000, p2b::CmabLogBase::two, z),
                1e-12);
    EXPECT_DOUBLE_EQ(p.paper_delta, 0.01);
    EXPECT_NEAR(p.basic_epsilon, 2 * p.paper_epsilon, 1e-12);
    EXPECT_NEAR(p.basic_delta, 0.02 * z, 1e-12);
    EXPECT_NEAR(p.element_epsilon, p2b::gdp_epsilon(first_mu, 0.01), 1e-9);
    EXPECT_NEAR(p.sequential_epsilon, p2b::gdp_epsilon(std::sqrt(sum_mu2), 0.01), 1e-9);
    EXPECT_NEAR(p.vector_epsilon, p2b::gdp_epsilon(first_mu * std::sqrt(30.0), 0.01), 1e-9);
    EXPECT_LE(p.element_epsilon, p.sequential_epsilon);
    EXPECT_LE(p.sequential_epsilon, p.vector_epsilon + 1e-12);
  }
  EXPECT_EQ(z, 16U);
}

TEST(CmabNoise, ReleasesCarryTheCalibratedGaussianAroundTheTrueIncrement) {
  // Many agents (seeds), each releasing once after one round of one unit of
  // each producer, all good: every residual is one draw of N(0, sigma^2).
  p2b_cmab_config c = explore_only(8);
  c.window_start = 1;
  const double multiplier = p2b::cmab_noise_multiplier(
      p2b::cmab_release_epsilon(1.0, 100000, p2b::CmabLogBase::two, 1), 0.01);
  double sum_w = 0.0;
  double sum2_w = 0.0;
  double sum_wy = 0.0;
  double sum2_y = 0.0;
  int n = 0;
  for (uint64_t seed = 1; seed <= 2000; ++seed) {
    c.seed = seed;
    Agent g = make(c, 50);
    play_round(g, 8);
    p2b_status st;
    const auto bytes = poll(g, &st);
    ASSERT_EQ(st, P2B_OK);
    p2b::CmabShare s;
    ASSERT_EQ(p2b::cmab_share_decode(bytes.data(), bytes.size(), &s), p2b::Status::ok);
    ASSERT_EQ(s.release, 1U);
    EXPECT_DOUBLE_EQ(s.release_epsilon,
                     p2b::cmab_release_epsilon(1.0, 100000, p2b::CmabLogBase::two, 1));
    for (uint32_t i = 0; i < 8; ++i) {
      const double rw = (s.w_noisy[i] - 1.0) / (50.0 * multiplier);
      const double ry = (s.y_noisy[i] - 1.0) / (50.0 * multiplier);
      sum_w += rw;
      sum2_w += rw * rw;
      sum_wy += rw * ry;
      sum2_y += ry * ry;
      ++n;
    }
  }
  const double mean = sum_w / n;
  EXPECT_NEAR(mean, 0.0, 0.035);  // 4 standard errors at n = 16000
  EXPECT_NEAR(sum2_w / n - mean * mean, 1.0, 0.05);
  EXPECT_NEAR(sum2_y / n, 1.0, 0.05);
  EXPECT_NEAR(sum_wy / n, 0.0, 0.035);  // w~ and y~ draw independent noise
  // sigma = 50 * 3.1 / 0.28 = 550 units: one round's counts drown, as the
  // paper's first eight releases do.
  EXPECT_NEAR(50.0 * multiplier, 554.6, 1.0);
}

std::vector<uint8_t> encode(const p2b::CmabShare& s) {
  std::vector<uint8_t> out(p2b::cmab_share_encoded_size(s.producers));
  size_t n = 0;
  EXPECT_EQ(p2b::cmab_share_encode(s, out.data(), out.size(), &n), p2b::Status::ok);
  EXPECT_EQ(n, out.size());
  return out;
}

p2b::CmabShare share_of(uint32_t m, uint32_t release, int32_t w, int32_t y) {
  p2b::CmabShare s;
  s.producers = m;
  s.release = release;
  s.round = 300;
  s.release_epsilon = 0.1;
  for (uint32_t i = 0; i < m; ++i) {
    s.w_noisy[i] = w;
    s.y_noisy[i] = y;
  }
  return s;
}

TEST(CmabAcceptance, ReportsInsideTheBandAreAddedWithWeightOmega2) {
  p2b_cmab_config c = explore_only(2);
  c.omega1 = 1.0;
  c.omega2 = 10.0;
  Agent g = make(c);
  for (int t = 0; t < 100; ++t) {
    std::vector<uint32_t> units(2);
    ASSERT_EQ(p2b_cmab_decide(g.a, units.data(), 2), P2B_OK);
    const uint32_t good[2] = {t % 2 == 0 ? 1U : 0U, t % 2 == 0 ? 1U : 0U};  // q^ = 0.5
    ASSERT_EQ(p2b_cmab_observe(g.a, good, 2), P2B_OK);
  }
  // Radius omega1 sqrt(3 ln(4 * 101) / 200) = 0.30: 0.6 is inside, 0.9 out.
  p2b::CmabShare s = share_of(2, 1, 100, 60);
  s.y_noisy[1] = 90;
  const auto bytes = encode(s);
  uint32_t accepted = 0;
  uint32_t rejected = 0;
  ASSERT_EQ(p2b_cmab_apply_share(g.a, 1, bytes.data(), bytes.size(), &accepted, &rejected), P2B_OK);
  EXPECT_EQ(accepted, 1U);
  EXPECT_EQ(rejected, 1U);
  double w[2];
  double q[2];
  ASSERT_EQ(p2b_cmab_estimates(g.a, w, q, 2), P2B_OK);
  EXPECT_DOUBLE_EQ(w[0], 100 + 10 * 100.0);
  EXPECT_DOUBLE_EQ(q[0], (50 + 10 * 60.0) / 1100.0);
  EXPECT_DOUBLE_EQ(w[1], 100);
  // A report with no units carries no estimate, whatever the band.
  c.omega1 = kInf;
  Agent h = make(c);
  const auto empty = encode(share_of(2, 1, 0, 0));
  ASSERT_EQ(p2b_cmab_apply_share(h.a, 0, empty.data(), empty.size(), &accepted, &rejected), P2B_OK);
  EXPECT_EQ(accepted, 0U);
  const auto negative = encode(share_of(2, 2, -5, 3));
  ASSERT_EQ(p2b_cmab_apply_share(h.a, 0, negative.data(), negative.size(), &accepted, &rejected),
            P2B_OK);
  EXPECT_EQ(accepted, 0U);
}

TEST(CmabAcceptance, ReplaysAndBadSharesChangeNothing) {
  p2b_cmab_config c = explore_only(3);
  c.omega1 = kInf;
  Agent g = make(c);
  play_round(g, 3);
  const auto second = encode(share_of(3, 2, 4, 2));
  ASSERT_EQ(p2b_cmab_apply_share(g.a, 2, second.data(), second.size(), nullptr, nullptr), P2B_OK);
  const auto before = g.bytes();
  const auto first = encode(share_of(3, 1, 4, 2));
  EXPECT_EQ(p2b_cmab_apply_share(g.a, 2, second.data(), second.size(), nullptr, nullptr),
            P2B_ERR_REPLAYED);
  EXPECT_EQ(p2b_cmab_apply_share(g.a, 2, first.data(), first.size(), nullptr, nullptr),
            P2B_ERR_REPLAYED);
  EXPECT_EQ(p2b_cmab_apply_share(g.a, 4, first.data(), first.size(), nullptr, nullptr),
            P2B_ERR_ACTION_OUT_OF_RANGE);
  const auto other_m = encode(share_of(4, 3, 4, 2));
  EXPECT_EQ(p2b_cmab_apply_share(g.a, 2, other_m.data(), other_m.size(), nullptr, nullptr),
            P2B_ERR_DIMENSION_MISMATCH);
  std::vector<uint8_t> truncated(second.begin(), second.end() - 1);
  EXPECT_EQ(p2b_cmab_apply_share(g.a, 1, truncated.data(), truncated.size(), nullptr, nullptr),
            P2B_ERR_MALFORMED_INPUT);
  std::vector<uint8_t> longer = second;
  longer.push_back(0);
  EXPECT_EQ(p2b_cmab_apply_share(g.a, 1, longer.data(), longer.size(), nullptr, nullptr),
            P2B_ERR_MALFORMED_INPUT);
  EXPECT_EQ(g.bytes(), before);
  // The same release from another sender is news.
  EXPECT_EQ(p2b_cmab_apply_share(g.a, 1, second.data(), second.size(), nullptr, nullptr), P2B_OK);
}

TEST(CmabShareCodec, EveryMHasOneLengthAndRoundTrips) {
  std::mt19937_64 gen(3);
  std::set<size_t> lengths;
  for (uint32_t m = 1; m <= P2B_CMAB_MAX_PRODUCERS; ++m) {
    p2b::CmabShare s = share_of(m, 7, 0, 0);
    for (uint32_t i = 0; i < m; ++i) {
      s.w_noisy[i] = static_cast<int32_t>(gen());
      s.y_noisy[i] = static_cast<int32_t>(gen());
    }
    const auto bytes = encode(s);
    EXPECT_EQ(bytes.size(), p2b_cmab_share_size(m));
    lengths.insert(bytes.size());
    p2b::CmabShare back;
    ASSERT_EQ(p2b::cmab_share_decode(bytes.data(), bytes.size(), &back), p2b::Status::ok);
    EXPECT_EQ(back.producers, m);
    EXPECT_EQ(back.release, 7U);
    EXPECT_EQ(std::memcmp(back.w_noisy, s.w_noisy, m * sizeof(int32_t)), 0);
    EXPECT_EQ(std::memcmp(back.y_noisy, s.y_noisy, m * sizeof(int32_t)), 0);
    // Extreme values do not change the length.
    for (uint32_t i = 0; i < m; ++i) s.w_noisy[i] = std::numeric_limits<int32_t>::min();
    EXPECT_EQ(encode(s).size(), bytes.size());
  }
  EXPECT_EQ(lengths.size(), P2B_CMAB_MAX_PRODUCERS);
  EXPECT_EQ(p2b_cmab_share_size(30), 277U);
  EXPECT_EQ(p2b_cmab_share_size(0), 0U);
  EXPECT_EQ(p2b_cmab_share_size(65), 0U);
}

TEST(CmabShareCodec, RefusesWhatIsNotACanonicalShare) {
  p2b::CmabShare s = share_of(5, 1, 3, 1);
  p2b::CmabShare out = share_of(1, 9, 9, 9);
  const p2b::CmabShare untouched = out;
  auto same = [&] {
    return out.producers == untouched.producers && out.release == untouched.release &&
           out.round == untouched.round && out.w_noisy[0] == untouched.w_noisy[0];
  };
  s.release_epsilon = std::nan("");
  size_t n = 0;
  uint8_t buf[600];
  EXPECT_EQ(p2b::cmab_share_encode(s, buf, sizeof buf, &n), p2b::Status::malformed_input);
  s.release_epsilon = 0.5;
  auto bytes = encode(s);
  // Every single-byte change either fails to decode or decodes to another
  // well-formed share of the same length: never to anything out of range.
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      auto flipped = bytes;
      flipped[i] ^= static_cast<uint8_t>(1U << bit);
      p2b::CmabShare got;
      const auto st = p2b::cmab_share_decode(flipped.data(), flipped.size(), &got);
      if (st == p2b::Status::ok) {
        EXPECT_EQ(got.producers, 5U);
        EXPECT_GE(got.release, 1U);
        EXPECT_FALSE(std::isnan(got.release_epsilon));
      }
    }
  }
  // The same fields in another order: same length, same meaning, refused
  // (found by fuzz_cmab_share): one share, one encoding.
  auto swapped = bytes;
  std::swap_ranges(swapped.begin(), swapped.begin() + 5, swapped.begin() + 5);
  ASSERT_EQ(swapped[0], 0x15);  // field 2 (producers), fixed32
  EXPECT_EQ(p2b::cmab_share_decode(swapped.data(), swapped.size(), &out),
            p2b::Status::malformed_input);
  EXPECT_EQ(p2b::cmab_share_decode(bytes.data(), 3, &out), p2b::Status::malformed_input);
  EXPECT_EQ(p2b::cmab_share_decode(nullptr, 3, &out), p2b::Status::null_pointer);
  EXPECT_TRUE(same());
}

TEST(CmabAgentInput, BadInputGetsADistinctStatusAndChangesNothing) {
  p2b_cmab_config c = explore_only(3);
  Agent g = make(c);
  play_round(g, 3);
  const auto before = g.bytes();
  uint32_t units[3] = {0, 0, 0};
  uint32_t good[3] = {0, 0, 0};
  EXPECT_EQ(p2b_cmab_observe(g.a, good, 3), P2B_ERR_UNKNOWN_DECISION);
  EXPECT_EQ(p2b_cmab_decide(g.a, units, 2), P2B_ERR_DIMENSION_MISMATCH);
  EXPECT_EQ(p2b_cmab_decide(g.a, nullptr, 3), P2B_ERR_NULL_POINTER);
  EXPECT_EQ(p2b_cmab_decide(nullptr, units, 3), P2B_ERR_NULL_POINTER);
  EXPECT_EQ(g.bytes(), before);
  ASSERT_EQ(p2b_cmab_decide(g.a, units, 3), P2B_OK);
  const auto decided = g.bytes();
  good[1] = units[1] + 1;
  EXPECT_EQ(p2b_cmab_observe(g.a, good, 3), P2B_ERR_REWARD_OUT_OF_RANGE);
  EXPECT_EQ(g.bytes(), decided);
  unsigned char junk[256] = {};
  EXPECT_EQ(p2b_cmab_decide(reinterpret_cast<p2b_cmab*>(junk), units, 3), P2B_ERR_NOT_INITIALIZED);

  // Configurations: each fault alone.
  p2b_cmab_config bad = config(3);
  std::vector<double> cost(3, 0.1);
  std::vector<uint32_t> cap(3, 5);
  bad.cost = cost.data();
  bad.capacity = cap.data();
  size_t n = 0;
  ASSERT_EQ(p2b_cmab_footprint(&bad, &n), P2B_OK);
  auto expect_bad = [&](auto edit) {
    p2b_cmab_config b = bad;
    edit(b);
    size_t size = 0;
    EXPECT_EQ(p2b_cmab_footprint(&b, &size), P2B_ERR_BAD_CONFIG);
  };
  expect_bad([](p2b_cmab_config& b) { b.producers = 0; });
  expect_bad([](p2b_cmab_config& b) { b.producers = 65; });
  expect_bad([](p2b_cmab_config& b) { b.epsilon = std::nan(""); });
  expect_bad([](p2b_cmab_config& b) { b.epsilon = -1; });
  expect_bad([](p2b_cmab_config& b) { b.delta = 0; });
  expect_bad([](p2b_cmab_config& b) { b.omega2 = 0; });
  expect_bad([](p2b_cmab_config& b) { b.window_stop = 100; });
  expect_bad([](p2b_cmab_config& b) { b.horizon = 1; });
  expect_bad([](p2b_cmab_config& b) { b.schedule = 3; });
  expect_bad([](p2b_cmab_config& b) { b.public_max_capacity = 4; });
  expect_bad([](p2b_cmab_config& b) { b.alpha = 1.5; });
  cap[1] = 0;
  EXPECT_EQ(p2b_cmab_footprint(&bad, &n), P2B_ERR_BAD_CONFIG);
  cap[1] = 5;
  cost[2] = kInf;
  EXPECT_EQ(p2b_cmab_footprint(&bad, &n), P2B_ERR_BAD_CONFIG);
}

TEST(CmabAgentInput, ASmallBufferLeavesTheShareWaiting) {
  p2b_cmab_config c = explore_only(4);
  c.window_start = 1;
  Agent g = make(c);
  play_round(g, 4);
  uint8_t small[8];
  size_t n = 0;
  EXPECT_EQ(p2b_cmab_poll_share(g.a, small, sizeof small, &n), P2B_ERR_BUFFER_TOO_SMALL);
  p2b_status st;
  EXPECT_EQ(poll(g, &st).size(), p2b_cmab_share_size(4));
  EXPECT_EQ(st, P2B_OK);
  (void)poll(g, &st);
  EXPECT_EQ(st, P2B_NO_REPORT);
}

TEST(CmabDecisions, OracleRunsOnTheUcbsAfterExploring) {
  // Two producers at cost 0.3: one always good, one never. After exploring
  // the agent buys the good one at capacity every round, and the bad one
  // only when its UCB, which grows like sqrt(ln t / W), climbs back above
  // the cost: ever more rarely.
  p2b_cmab_config c = config(2);
  c.explore_rounds = 5;
  Agent g = make(c, 10);
  uint32_t bad_rounds_early = 0;
  uint32_t bad_rounds_late = 0;
  for (int t = 1; t <= 2000; ++t) {
    uint32_t units[2];
    ASSERT_EQ(p2b_cmab_decide(g.a, units, 2), P2B_OK);
    if (t <= 5) {
      EXPECT_EQ(units[0], 1U);
      EXPECT_EQ(units[1], 1U);
    } else {
      EXPECT_EQ(units[0], 10U) << "round " << t;
      if (units[1] > 0) (t <= 1000 ? bad_rounds_early : bad_rounds_late) += 1;
    }
    const uint32_t good[2] = {units[0], 0};
    ASSERT_EQ(p2b_cmab_observe(g.a, good, 2), P2B_OK);
  }
  EXPECT_GT(bad_rounds_early, 0U);
  EXPECT_LT(bad_rounds_early, 40U);
  EXPECT_LT(bad_rounds_late, bad_rounds_early);
  double w[2];
  double q[2];
  ASSERT_EQ(p2b_cmab_estimates(g.a, w, q, 2), P2B_OK);
  EXPECT_DOUBLE_EQ(q[0], 1.0);
  EXPECT_DOUBLE_EQ(q[1], 0.0);
}

}  // namespace
