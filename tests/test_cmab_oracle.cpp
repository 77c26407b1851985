// The P-FCB oracle ("lp_greedy") against brute force: the LP optimum against
// every vertex of the polytope, the integer selection against every integer
// vector on small instances, the tie rules on hand-made cases, and the
// statuses on bad input (with the outputs left as they were).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "p2b/cmab.hpp"

namespace {

using p2b::CmabProblem;
using p2b::Status;

struct Instance {
  std::vector<double> q, c, k;
  double rho = 1.0;
  double alpha = 0.4;

  uint32_t m() const { return static_cast<uint32_t>(q.size()); }
  // The same expressions as the oracle, so exact cases stay exact.
  double r(uint32_t i) const { return rho * q[i] - c[i]; }
  double g(uint32_t i) const { return q[i] - alpha; }
  CmabProblem problem() const {
    CmabProblem p;
    p.m = m();
    p.quality = q.data();
    p.cost = c.data();
    p.capacity = k.data();
    p.rho = rho;
    p.alpha = alpha;
    return p;
  }
  template <typename U>
  double value(const U* l) const {
    double v = 0.0;
    for (uint32_t i = 0; i < m(); ++i) v += static_cast<double>(l[i]) * r(i);
    return v;
  }
  template <typename U>
  double slack(const U* l) const {
    double s = 0.0;
    for (uint32_t i = 0; i < m(); ++i) s += static_cast<double>(l[i]) * g(i);
    return s;
  }
};

// The instance families: the paper's two distributions, every producer on
// one side of alpha, a coarse dyadic grid (exact arithmetic, so equal
// breakpoints, g = 0, r = 0 and k = 0 all occur), and uniform instances with
// zero capacities and zero margins sprinkled in. The paper's distributions
// rarely make the constraint bind at lambda = 0, so "tradeoff" prices
// quality: producers above alpha mostly lose money, those below mostly earn.
enum class Kind { uniform, normal, below, above, grid, sparse, tradeoff, count };

Instance make(std::mt19937_64& rng, Kind kind, uint32_t m, uint32_t kmax) {
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  std::normal_distribution<double> n04(0.4, 0.2);
  std::uniform_int_distribution<uint32_t> cap(1, kmax);
  std::uniform_int_distribution<int> eighth(0, 8);
  Instance in;
  in.q.resize(m);
  in.c.resize(m);
  in.k.resize(m);
  switch (kind) {
    case Kind::uniform:
    case Kind::sparse:
      for (uint32_t i = 0; i < m; ++i) {
        in.q[i] = u01(rng);
        in.c[i] = u01(rng);
        in.k[i] = cap(rng);
        if (kind == Kind::sparse && u01(rng) < 0.3) in.k[i] = 0.0;
        if (kind == Kind::sparse && u01(rng) < 0.2) in.c[i] = in.rho * in.q[i];  // r = 0
      }
      break;
    case Kind::normal:
      for (uint32_t i = 0; i < m; ++i) {
        in.q[i] = std::clamp(n04(rng), 0.0, 1.0);
        in.c[i] = std::clamp(n04(rng), 0.0, 1.0);
        in.k[i] = cap(rng);
      }
      break;
    case Kind::below:
    case Kind::above:
      in.alpha = 0.2 + 0.7 * u01(rng);
      in.rho = 0.5 + 2.5 * u01(rng);
      for (uint32_t i = 0; i < m; ++i) {
        const double lo = kind == Kind::below ? 0.0 : in.alpha;
        const double hi = kind == Kind::below ? in.alpha : 1.0;
        in.q[i] = lo + (hi - lo) * u01(rng);
        if (in.q[i] == in.alpha) in.q[i] = kind == Kind::below ? 0.0 : 1.0;
        in.c[i] = in.rho * u01(rng);
        in.k[i] = cap(rng);
      }
      break;
    case Kind::grid: {
      const double alphas[] = {0.25, 0.5, 0.75};
      in.alpha = alphas[rng() % 3];
      in.rho = (rng() % 2 == 0) ? 1.0 : 2.0;
      std::uniform_int_distribution<uint32_t> grid_cap(0, std::min(kmax, 6U));
      for (uint32_t i = 0; i < m; ++i) {
        in.q[i] = eighth(rng) / 8.0;
        in.c[i] = eighth(rng) / 8.0;
        in.k[i] = grid_cap(rng);
      }
      break;
    }
    case Kind::tradeoff: {
      std::normal_distribution<double> noise(0.0, 0.1);
      in.alpha = 0.3 + 0.4 * u01(rng);
      for (uint32_t i = 0; i < m; ++i) {
        in.q[i] = u01(rng);
        in.c[i] = in.q[i] + 0.5 * (in.q[i] - in.alpha) + noise(rng);
        in.k[i] = cap(rng);
      }
      break;
    }
    case Kind::count:
      break;
  }
  return in;
}

// The LP optimum as the best vertex. A vertex has at most one coordinate
// strictly inside its bounds, and then the quality constraint is tight: so
// every {0, k}^m vector, and every choice of one index j with the others at
// {0, k} and l_j solved from the tight constraint.
double brute_lp(const Instance& in) {
  const uint32_t m = in.m();
  double best = 0.0;  // the empty selection
  for (uint32_t mask = 0; mask < (1U << m); ++mask) {
    double s = 0.0;
    double v = 0.0;
    for (uint32_t i = 0; i < m; ++i) {
      if ((mask >> i & 1U) == 0) continue;
      s += in.k[i] * in.g(i);
      v += in.k[i] * in.r(i);
    }
    if (s >= 0.0) best = std::max(best, v);
  }
  for (uint32_t j = 0; j < m; ++j) {
    const double gj = in.g(j);
    if (gj == 0.0) continue;
    for (uint32_t mask = 0; mask < (1U << m); ++mask) {
      if ((mask >> j & 1U) != 0) continue;
      double s = 0.0;
      double v = 0.0;
      for (uint32_t i = 0; i < m; ++i) {
        if ((mask >> i & 1U) == 0) continue;
        s += in.k[i] * in.g(i);
        v += in.k[i] * in.r(i);
      }
      const double l = -s / gj;
      const double tol = 1e-12 * std::max(1.0, in.k[j]);
      if (l < -tol || l > in.k[j] + tol) continue;
      best = std::max(best, v + std::clamp(l, 0.0, in.k[j]) * in.r(j));
    }
  }
  return best;
}

// The integer optimum over all (k+1)^m vectors (small instances only).
double brute_integer(const Instance& in) {
  const uint32_t m = in.m();
  std::vector<uint32_t> l(m, 0);
  double best = 0.0;
  for (;;) {
    if (in.slack(l.data()) >= 0.0) best = std::max(best, in.value(l.data()));
    uint32_t i = 0;
    while (i < m && l[i] == static_cast<uint32_t>(in.k[i])) l[i++] = 0;
    if (i == m) break;
    ++l[i];
  }
  return best;
}

struct Solved {
  std::vector<double> lp;
  double lp_value = 0.0;
  std::vector<uint32_t> units;
  uint32_t frac = UINT32_MAX;  // the LP's fractional entry, if any
};

Solved solve(const Instance& in) {
  Solved out;
  const CmabProblem p = in.problem();
  std::vector<uint32_t> scratch(in.m());
  out.lp.assign(in.m(), -1.0);
  out.units.assign(in.m(), UINT32_MAX);
  EXPECT_EQ(p2b::cmab_lp_optimum(p, out.lp.data(), &out.lp_value, scratch.data()), Status::ok);
  EXPECT_EQ(p2b::cmab_select(p, out.units.data(), scratch.data()), Status::ok);
  uint32_t fractional = 0;
  for (uint32_t i = 0; i < in.m(); ++i) {
    if (out.lp[i] != std::floor(out.lp[i])) {
      out.frac = i;
      ++fractional;
    }
  }
  EXPECT_LE(fractional, 1U) << "the LP optimum has at most one fractional entry";
  return out;
}

double tol(double v) {
  return 1e-9 * std::max(1.0, std::fabs(v));
}

// Every claim about one instance: the LP against brute force, and the
// integer selection against the LP it was rounded from.
void check_instance(const Instance& in, const Solved& s, double* worst_lp_error) {
  const uint32_t m = in.m();
  const double brute = brute_lp(in);
  *worst_lp_error = std::max(*worst_lp_error, std::fabs(s.lp_value - brute));
  ASSERT_NEAR(s.lp_value, brute, tol(brute));
  ASSERT_NEAR(s.lp_value, in.value(s.lp.data()), tol(brute)) << "value is the units' objective";
  ASSERT_GE(in.slack(s.lp.data()), -1e-9);
  ASSERT_GE(in.slack(s.units.data()), -1e-9) << "the integer selection keeps the constraint";
  // The rounded mix itself, to check the empty-selection guard against.
  std::vector<double> rounded(s.lp);
  if (s.frac != UINT32_MAX) {
    rounded[s.frac] = in.g(s.frac) > 0.0 ? std::ceil(s.lp[s.frac]) : std::floor(s.lp[s.frac]);
  }
  if (in.value(rounded.data()) < 0.0) {
    for (uint32_t i = 0; i < m; ++i) ASSERT_EQ(s.units[i], 0U) << "a losing mix is not bought";
    return;
  }
  for (uint32_t i = 0; i < m; ++i) {
    ASSERT_GE(s.lp[i], 0.0);
    ASSERT_LE(s.lp[i], in.k[i]);
    ASSERT_LE(static_cast<double>(s.units[i]), in.k[i]);
    if (i == s.frac) {
      // A fractional part this close to a whole number is the running
      // slack's rounding residue, not a deficit: rounding it buys or drops a
      // whole unit for nothing. (Genuine ones this close have probability
      // ~1e-9 on the continuous families, and the grid is exact.)
      const double part = s.lp[i] - std::floor(s.lp[i]);
      ASSERT_GT(std::min(part, 1.0 - part), 1e-9) << "item " << i << " holds " << s.lp[i];
      // Rounded to the side that adds slack.
      const double want = in.g(i) > 0.0 ? std::ceil(s.lp[i]) : std::floor(s.lp[i]);
      ASSERT_EQ(static_cast<double>(s.units[i]), want) << "item " << i;
    } else {
      ASSERT_EQ(static_cast<double>(s.units[i]), s.lp[i]) << "item " << i;
    }
  }
  // The rounding moves one item by less than one unit.
  const double r_frac = s.frac == UINT32_MAX ? 0.0 : std::fabs(in.r(s.frac));
  ASSERT_GE(in.value(s.units.data()), s.lp_value - r_frac - tol(brute));
}

TEST(CmabOracle, LpMatchesVertexEnumerationOnTenThousandInstances) {
  std::mt19937_64 rng(20220917);
  constexpr int kInstances = 10000;
  const auto kinds = static_cast<int>(Kind::count);
  std::vector<int> walked(kinds, 0);
  int fractional = 0;
  double worst = 0.0;
  for (int n = 0; n < kInstances; ++n) {
    const auto kind = static_cast<Kind>(n % kinds);
    const auto m = static_cast<uint32_t>(1 + rng() % 8);
    const Instance in = make(rng, kind, m, 50);
    const Solved s = solve(in);
    double lambda0_slack = 0.0;
    for (uint32_t i = 0; i < m; ++i) {
      if (in.r(i) > 0.0) lambda0_slack += in.k[i] * in.g(i);
    }
    if (lambda0_slack < 0.0) ++walked[n % kinds];
    if (s.frac != UINT32_MAX) ++fractional;
    SCOPED_TRACE(testing::Message() << "instance " << n << " kind " << n % kinds << " m " << m);
    check_instance(in, s, &worst);
    if (testing::Test::HasFatalFailure()) return;
  }
  std::printf("[lp] %d instances, worst |value - brute| %.3g, %d with a fractional entry\n",
              kInstances, worst, fractional);
  std::printf(
      "[lp] constraint binding at lambda = 0, per kind (U, N, below, above, grid, sparse, "
      "tradeoff):");
  for (int w : walked) std::printf(" %d", w);
  std::printf("\n");
  // Each family must exercise the breakpoint walk, or the check proves little.
  for (int kind = 0; kind < kinds; ++kind) {
    if (static_cast<Kind>(kind) != Kind::above) {
      EXPECT_GT(walked[kind], 50) << "kind " << kind;
    }
  }
  EXPECT_EQ(walked[static_cast<int>(Kind::above)], 0);
  EXPECT_GT(fractional, 1000);
}

// The known bound of rounding one fractional LP entry: the selection loses
// less than one unit's |r| of that item against the LP, and the integer
// optimum is at most the LP, so it is at most that far from the integer
// optimum too.
TEST(CmabOracle, SelectionIsWithinOneUnitOfTheIntegerOptimum) {
  std::mt19937_64 rng(4);
  constexpr int kInstances = 10000;
  const auto kinds = static_cast<int>(Kind::count);
  int optimal = 0;
  int with_frac = 0;
  int optimal_with_frac = 0;
  int emptied = 0;           // rounded mixes worth less than nothing, replaced by none
  double worst_share = 0.0;  // gap / |r| of the fractional item
  double worst = 0.0;
  for (int n = 0; n < kInstances; ++n) {
    const auto kind = static_cast<Kind>(n % kinds);
    const auto m = static_cast<uint32_t>(1 + rng() % 6);
    const Instance in = make(rng, kind, m, 3);
    const Solved s = solve(in);
    SCOPED_TRACE(testing::Message() << "instance " << n << " kind " << n % kinds << " m " << m);
    check_instance(in, s, &worst);
    if (testing::Test::HasFatalFailure()) return;
    const double opt = brute_integer(in);
    const double got = in.value(s.units.data());
    const double gap = opt - got;
    const double r_frac = s.frac == UINT32_MAX ? 0.0 : std::fabs(in.r(s.frac));
    ASSERT_LE(opt, s.lp_value + tol(opt)) << "the LP bounds the integer optimum";
    ASSERT_LE(gap, r_frac + tol(opt));
    ASSERT_GE(got, 0.0) << "never worse than buying nothing";
    const bool none =
        std::all_of(s.units.begin(), s.units.end(), [](uint32_t u) { return u == 0; });
    emptied += (none && s.frac != UINT32_MAX && s.lp_value > 0.0) ? 1 : 0;
    const bool exact = gap <= 1e-12 * std::max(1.0, std::fabs(opt));
    optimal += exact ? 1 : 0;
    if (s.frac != UINT32_MAX) {
      ++with_frac;
      optimal_with_frac += exact ? 1 : 0;
      worst_share = std::max(worst_share, gap / r_frac);
    }
  }
  std::printf(
      "[integer] %d instances (m <= 6, k <= 3): %.1f%% exactly optimal; %d with a fractional LP "
      "entry, %.1f%% of those optimal; worst gap %.9f of the rounded item's |r|\n",
      kInstances, 100.0 * optimal / kInstances, with_frac,
      with_frac > 0 ? 100.0 * optimal_with_frac / with_frac : 0.0, worst_share);
  std::printf("[integer] %d rounded mixes worth less than nothing, replaced by the empty one\n",
              emptied);
  EXPECT_GT(emptied, 0) << "no instance exercises the empty-selection guard";
  EXPECT_GT(optimal, kInstances / 2);
  EXPECT_GT(optimal_with_frac, with_frac / 2);
  EXPECT_GT(with_frac, 600) << "too few instances exercise the rounding";
}

// A case where no {0, k} vector reaches the LP optimum, worked by hand: the
// enumeration must find the fractional vertex, and the oracle the same.
TEST(CmabOracle, FractionalVertexByHand) {
  Instance in;
  in.alpha = 0.5;
  in.q = {0.75, 0.125};  // g = 0.25, -0.375
  in.c = {0.5, 0.0};     // r = 0.25, 0.125
  in.k = {1.0, 4.0};
  // Both taken at lambda = 0: slack 0.25 - 1.5 < 0. Item 1 leaves until the
  // slack is 0: 1.25 / 0.375 = 10/3 units out, 2/3 stay. Value 1/4 + 1/12.
  EXPECT_DOUBLE_EQ(brute_lp(in), 1.0 / 3.0);
  const Solved s = solve(in);
  EXPECT_DOUBLE_EQ(s.lp_value, 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(s.lp[0], 1.0);
  EXPECT_DOUBLE_EQ(s.lp[1], 2.0 / 3.0);
  EXPECT_EQ(s.units, (std::vector<uint32_t>{1, 0}));  // below alpha: floored
  EXPECT_DOUBLE_EQ(brute_integer(in), 0.25);
}

// Equal breakpoints go lowest index first.
TEST(CmabOracle, EqualBreakpointsFillTheLowestIndexFirst) {
  Instance in;
  in.alpha = 0.5;
  in.q = {0.75, 0.75, 0.25};  // g = 0.25, 0.25, -0.25
  in.c = {1.0, 1.0, -0.25};   // r = -0.25, -0.25, 0.5: breakpoints 1, 1, 2
  in.k = {3.0, 2.0, 4.0};
  // Slack -1 at lambda = 0; item 0 enters whole (+0.75), item 1 closes the
  // rest with one unit. Highest index first would give {2, 2, 4}, same value.
  Solved s = solve(in);
  EXPECT_EQ(s.lp, (std::vector<double>{3.0, 1.0, 4.0}));
  EXPECT_DOUBLE_EQ(s.lp_value, 1.0);
  EXPECT_EQ(s.units, (std::vector<uint32_t>{3, 1, 4}));
  // With the capacities swapped, item 0 is again the one filled first.
  in.k = {2.0, 3.0, 4.0};
  s = solve(in);
  EXPECT_EQ(s.units, (std::vector<uint32_t>{2, 2, 4}));
  EXPECT_DOUBLE_EQ(s.lp_value, 1.0);
}

// r = 0 items stay out unless their slack is needed; g = 0 items follow the
// sign of r alone; k = 0 items are always 0.
TEST(CmabOracle, ZeroMarginsAndCapacities) {
  Instance in;
  in.alpha = 0.5;
  in.q = {0.75, 0.5, 0.5, 0.25, 1.0};
  in.c = {0.75, 0.25, 0.75, 0.0, 0.0};  // r = 0, 0.25, -0.25, 0.25, 1
  in.k = {4.0, 2.0, 2.0, 4.0, 0.0};     // item 4 would be the best, but k = 0
  // lambda = 0 takes items 1 (g = 0) and 3: slack -1. Item 0 enters at
  // breakpoint 0 and closes it exactly, whole.
  Solved s = solve(in);
  EXPECT_EQ(s.lp, (std::vector<double>{4.0, 2.0, 0.0, 4.0, 0.0}));
  EXPECT_EQ(s.units, (std::vector<uint32_t>{4, 2, 0, 4, 0}));
  EXPECT_DOUBLE_EQ(s.lp_value, 1.5);
  // Without the deficit (item 3 gone), the r = 0 item stays out.
  in.k[3] = 0.0;
  s = solve(in);
  EXPECT_EQ(s.units, (std::vector<uint32_t>{0, 2, 0, 0, 0}));
}

TEST(CmabOracle, AllBelowAlphaSelectsNothing) {
  Instance in;
  in.alpha = 0.875;
  in.q = {0.75, 0.5, 0.125};
  in.c = {0.125, 0.125, 0.0};  // every r > 0, every g < 0
  in.k = {5.0, 5.0, 5.0};
  const Solved s = solve(in);
  EXPECT_EQ(s.lp, (std::vector<double>{0.0, 0.0, 0.0}));
  EXPECT_EQ(s.units, (std::vector<uint32_t>{0, 0, 0}));
  EXPECT_EQ(s.lp_value, 0.0);
}

// The LP takes any capacity >= 0, the selection whole ones.
TEST(CmabOracle, LpTakesFractionalCapacities) {
  Instance in;
  in.q = {0.9};
  in.c = {0.1};
  in.k = {2.5};
  const CmabProblem p = in.problem();
  double l = 0.0;
  double v = 0.0;
  uint32_t scratch = 0;
  ASSERT_EQ(p2b::cmab_lp_optimum(p, &l, &v, &scratch), Status::ok);
  EXPECT_EQ(l, 2.5);
  uint32_t u = 9;
  EXPECT_EQ(p2b::cmab_select(p, &u, &scratch), Status::bad_config);
  EXPECT_EQ(u, 9U);
}

// ---- Bad input: one status per fault, and nothing written ------------------

constexpr double kUnitsSentinel = -7.25;
constexpr double kValueSentinel = 12345.5;
constexpr uint32_t kSelectSentinel = 0xDEADBEEFU;
constexpr uint32_t kScratchSentinel = 0xA5A5A5A5U;

// Runs both entry points and checks that neither wrote anything.
void expect_status(const Instance& in, Status want_lp, Status want_select,
                   const CmabProblem* override = nullptr) {
  const CmabProblem p = override != nullptr ? *override : in.problem();
  const size_t n = std::max<size_t>(in.q.size(), 1);
  std::vector<double> lp(n, kUnitsSentinel);
  std::vector<uint32_t> units(n, kSelectSentinel);
  std::vector<uint32_t> scratch(n, kScratchSentinel);
  double value = kValueSentinel;
  EXPECT_EQ(p2b::cmab_lp_optimum(p, lp.data(), &value, scratch.data()), want_lp);
  EXPECT_EQ(p2b::cmab_select(p, units.data(), scratch.data()), want_select);
  EXPECT_EQ(value, kValueSentinel);
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(lp[i], kUnitsSentinel);
    EXPECT_EQ(units[i], kSelectSentinel);
    EXPECT_EQ(scratch[i], kScratchSentinel);
  }
}

Instance valid() {
  Instance in;
  in.q = {0.9, 0.2, 0.6};
  in.c = {0.3, 0.1, 0.2};
  in.k = {3.0, 5.0, 2.0};
  return in;
}

TEST(CmabOracle, NullPointers) {
  const Instance in = valid();
  const CmabProblem good = in.problem();
  for (int field = 0; field < 3; ++field) {
    CmabProblem p = good;
    if (field == 0) p.quality = nullptr;
    if (field == 1) p.cost = nullptr;
    if (field == 2) p.capacity = nullptr;
    expect_status(in, Status::null_pointer, Status::null_pointer, &p);
  }
  std::vector<double> lp(3, kUnitsSentinel);
  std::vector<uint32_t> units(3, kSelectSentinel);
  std::vector<uint32_t> scratch(3, kScratchSentinel);
  double value = kValueSentinel;
  EXPECT_EQ(p2b::cmab_lp_optimum(good, nullptr, &value, scratch.data()), Status::null_pointer);
  EXPECT_EQ(p2b::cmab_lp_optimum(good, lp.data(), nullptr, scratch.data()), Status::null_pointer);
  EXPECT_EQ(p2b::cmab_lp_optimum(good, lp.data(), &value, nullptr), Status::null_pointer);
  EXPECT_EQ(p2b::cmab_select(good, nullptr, scratch.data()), Status::null_pointer);
  EXPECT_EQ(p2b::cmab_select(good, units.data(), nullptr), Status::null_pointer);
  EXPECT_EQ(value, kValueSentinel);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(lp[i], kUnitsSentinel);
    EXPECT_EQ(units[i], kSelectSentinel);
    EXPECT_EQ(scratch[i], kScratchSentinel);
  }
}

TEST(CmabOracle, BadConfig) {
  {
    Instance in = valid();
    CmabProblem p = in.problem();
    p.m = 0;
    expect_status(in, Status::bad_config, Status::bad_config, &p);
  }
  {
    std::mt19937_64 rng(1);
    const Instance in = make(rng, Kind::uniform, p2b::kCmabMaxProducers + 1, 50);
    expect_status(in, Status::bad_config, Status::bad_config);
    // One fewer is fine.
    CmabProblem p = in.problem();
    p.m = p2b::kCmabMaxProducers;
    std::vector<uint32_t> units(p.m);
    std::vector<uint32_t> scratch(p.m);
    EXPECT_EQ(p2b::cmab_select(p, units.data(), scratch.data()), Status::ok);
  }
  for (double rho : {0.0, -1.0, -0.0}) {
    Instance in = valid();
    in.rho = rho;
    expect_status(in, Status::bad_config, Status::bad_config);
  }
  for (double k : {-1.0, -1e-300, static_cast<double>(p2b::kCmabMaxCapacity) + 1.0}) {
    Instance in = valid();
    in.k[1] = k;
    expect_status(in, Status::bad_config, Status::bad_config);
  }
  Instance in = valid();
  in.k[2] = 1.5;
  std::vector<uint32_t> units(3, kSelectSentinel);
  std::vector<uint32_t> scratch(3, kScratchSentinel);
  EXPECT_EQ(p2b::cmab_select(in.problem(), units.data(), scratch.data()), Status::bad_config);
  EXPECT_EQ(units, std::vector<uint32_t>(3, kSelectSentinel));
  EXPECT_EQ(scratch, std::vector<uint32_t>(3, kScratchSentinel));
}

TEST(CmabOracle, NonFinite) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double bad : {nan, inf, -inf}) {
    for (int field = 0; field < 5; ++field) {
      Instance in = valid();
      if (field == 0) in.q[1] = bad;
      if (field == 1) in.c[2] = bad;
      if (field == 2) in.k[0] = bad;
      if (field == 3) in.rho = bad;
      if (field == 4) in.alpha = bad;
      SCOPED_TRACE(testing::Message() << "field " << field << " value " << bad);
      expect_status(in, Status::non_finite, Status::non_finite);
    }
  }
  // Finite inputs whose products overflow: r = rho q - c is infinite.
  Instance in = valid();
  in.rho = 1e300;
  in.q[0] = 1e10;
  expect_status(in, Status::non_finite, Status::non_finite);
  // ...or the slack's sum is.
  in = valid();
  in.q = {1e308, 1e308, 1e308};
  in.alpha = -1e308;
  in.rho = 1e-300;
  expect_status(in, Status::non_finite, Status::non_finite);
}

// The order between faults: non-finite values before values out of range.
TEST(CmabOracle, NonFiniteBeforeOutOfRange) {
  Instance in = valid();
  in.rho = -1.0;
  in.k[0] = -2.0;
  in.q[2] = std::numeric_limits<double>::quiet_NaN();
  expect_status(in, Status::non_finite, Status::non_finite);
}

}  // namespace
