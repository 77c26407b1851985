// The P-FCB oracle: nanoseconds per cmab_select (and per cmab_lp_optimum)
// at m = 8, 30 (the paper's) and 64 (the limit), on two families:
//   paper    q, c ~ U[0,1], k ~ U{1..50}, alpha 0.4: the paper's uniform
//            instances; the choice at lambda = 0 is usually feasible, so
//            most calls skip the sort
//   binding  instances drawn until the choice at lambda = 0 breaks the
//            constraint, so every call sorts and walks the breakpoints
// A pool of instances is cycled so that no branch pattern is learnt.
//
// Beside them, in the same run, two floors on the same pools: what any
// oracle must do at least, without checking its input.
//   ScanFloor  one pass over q, c, k: the choice at lambda = 0 and its
//              slack, which is the whole answer on a slack instance
//   SortFloor  that pass, then the crossing items' breakpoints computed once
//              and put in order with std::sort, which a binding instance
//              needs before its walk
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "p2b/cmab.hpp"

namespace {

constexpr uint32_t kPool = 256;

struct Pool {
  uint32_t m = 0;
  std::vector<double> q, c, k;
  double alpha = 0.4;

  p2b::CmabProblem problem(uint32_t n) const {
    p2b::CmabProblem p;
    p.m = m;
    p.quality = q.data() + static_cast<size_t>(n) * m;
    p.cost = c.data() + static_cast<size_t>(n) * m;
    p.capacity = k.data() + static_cast<size_t>(n) * m;
    p.rho = 1.0;
    p.alpha = alpha;
    return p;
  }
};

bool binds(const double* q, const double* c, const double* k, uint32_t m, double alpha) {
  double slack = 0.0;
  for (uint32_t i = 0; i < m; ++i) {
    if (q[i] - c[i] > 0.0) slack += k[i] * (q[i] - alpha);
  }
  return slack < 0.0;
}

Pool make_pool(uint32_t m, bool binding) {
  std::mt19937_64 rng(m * 2 + (binding ? 1 : 0));
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  std::uniform_int_distribution<int> cap(1, 50);
  Pool pool;
  pool.m = m;
  pool.q.resize(static_cast<size_t>(kPool) * m);
  pool.c.resize(pool.q.size());
  pool.k.resize(pool.q.size());
  for (uint32_t n = 0; n < kPool; ++n) {
    double* q = pool.q.data() + static_cast<size_t>(n) * m;
    double* c = pool.c.data() + static_cast<size_t>(n) * m;
    double* k = pool.k.data() + static_cast<size_t>(n) * m;
    do {
      for (uint32_t i = 0; i < m; ++i) {
        q[i] = u01(rng);
        // Binding instances price quality: cost tracks q plus a premium
        // above alpha, so cheap producers are the poor ones.
        c[i] = binding ? q[i] + 0.5 * (q[i] - pool.alpha) + 0.1 * (u01(rng) - 0.5) : u01(rng);
        k[i] = cap(rng);
      }
    } while (binding && !binds(q, c, k, m, pool.alpha));
  }
  return pool;
}

void BM_Select(benchmark::State& state, bool binding) {
  const auto m = static_cast<uint32_t>(state.range(0));
  const Pool pool = make_pool(m, binding);
  std::vector<uint32_t> units(m);
  std::vector<uint32_t> scratch(m);
  uint32_t n = 0;
  for (auto _ : state) {
    const p2b::Status s = p2b::cmab_select(pool.problem(n), units.data(), scratch.data());
    if (s != p2b::Status::ok) {
      state.SkipWithError("cmab_select failed");
      break;
    }
    benchmark::DoNotOptimize(units.data());
    n = (n + 1) % kPool;
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Lp(benchmark::State& state, bool binding) {
  const auto m = static_cast<uint32_t>(state.range(0));
  const Pool pool = make_pool(m, binding);
  std::vector<double> units(m);
  std::vector<uint32_t> scratch(m);
  double value = 0.0;
  uint32_t n = 0;
  for (auto _ : state) {
    const p2b::Status s =
        p2b::cmab_lp_optimum(pool.problem(n), units.data(), &value, scratch.data());
    if (s != p2b::Status::ok) {
      state.SkipWithError("cmab_lp_optimum failed");
      break;
    }
    benchmark::DoNotOptimize(value);
    n = (n + 1) % kPool;
  }
  state.SetItemsProcessed(state.iterations());
}

// The lambda = 0 choice into `units`; returns its slack.
double choose_at_zero(const p2b::CmabProblem& p, uint32_t* units) {
  double slack = 0.0;
  for (uint32_t i = 0; i < p.m; ++i) {
    const bool take = p.rho * p.quality[i] - p.cost[i] > 0.0;
    units[i] = take ? static_cast<uint32_t>(p.capacity[i]) : 0;
    if (take) slack += p.capacity[i] * (p.quality[i] - p.alpha);
  }
  return slack;
}

void BM_ScanFloor(benchmark::State& state, bool binding) {
  const auto m = static_cast<uint32_t>(state.range(0));
  const Pool pool = make_pool(m, binding);
  std::vector<uint32_t> units(m);
  uint32_t n = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(choose_at_zero(pool.problem(n), units.data()));
    benchmark::DoNotOptimize(units.data());
    n = (n + 1) % kPool;
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_SortFloor(benchmark::State& state, bool binding) {
  const auto m = static_cast<uint32_t>(state.range(0));
  const Pool pool = make_pool(m, binding);
  std::vector<uint32_t> units(m);
  std::vector<double> breakpoints(m);
  uint32_t n = 0;
  for (auto _ : state) {
    const p2b::CmabProblem p = pool.problem(n);
    benchmark::DoNotOptimize(choose_at_zero(p, units.data()));
    std::size_t events = 0;
    for (uint32_t i = 0; i < m; ++i) {
      const double r = p.rho * p.quality[i] - p.cost[i];
      const double g = p.quality[i] - p.alpha;
      if ((g > 0.0 && r <= 0.0) || (g < 0.0 && r > 0.0)) breakpoints[events++] = -r / g;
    }
    std::sort(breakpoints.begin(), breakpoints.begin() + static_cast<std::ptrdiff_t>(events));
    benchmark::DoNotOptimize(breakpoints.data());
    n = (n + 1) % kPool;
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK_CAPTURE(BM_Select, paper, false)->Arg(8)->Arg(30)->Arg(64);
BENCHMARK_CAPTURE(BM_Select, binding, true)->Arg(8)->Arg(30)->Arg(64);
BENCHMARK_CAPTURE(BM_Lp, paper, false)->Arg(8)->Arg(30)->Arg(64);
BENCHMARK_CAPTURE(BM_Lp, binding, true)->Arg(8)->Arg(30)->Arg(64);
BENCHMARK_CAPTURE(BM_ScanFloor, paper, false)->Arg(8)->Arg(30)->Arg(64);
BENCHMARK_CAPTURE(BM_SortFloor, binding, true)->Arg(8)->Arg(30)->Arg(64);

}  // namespace

BENCHMARK_MAIN();
