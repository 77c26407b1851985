// The shared-parameter model through the C API (p2b_shared_model_*): decide
// over K per-item contexts, and decide + reward, beside the arithmetic floor
// at this CPU's measured multiply-add rate (fma_rate.hpp).
//   LinUCB decide:  K whitening solves, K d^2/2 multiply-adds
//   LinTS decide:   one back substitution and K dot products, d^2/2 + K d
//   + reward:       a rank-1 factor update (d^2) and theta's two solves (d^2)
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "fma_rate.hpp"
#include "p2b.h"

namespace {

const p2b::bench::FmaRate& fma_rate() {
  static const p2b::bench::FmaRate rate = p2b::bench::measure_fma_rate();
  return rate;
}

class BenchModel {
 public:
  BenchModel(uint32_t d, uint32_t k, uint32_t policy, uint32_t precision) : d_(d), k_(k) {
    p2b_shared_config c;
    if (p2b_shared_config_default(&c) != P2B_OK) return;
    c.dim = d;
    c.max_items = k;
    c.policy = policy;
    c.precision = precision;
    c.tie_rel_tol = 1e-9;
    c.rng_mode = P2B_RNG_SEEDED;
    c.seed = 1;
    size_t need = 0;
    if (p2b_shared_model_footprint(&c, &need) != P2B_OK) return;
    arena_.resize(need + P2B_ARENA_ALIGN);
    const auto addr = reinterpret_cast<uintptr_t>(arena_.data());
    void* mem = arena_.data() + (P2B_ARENA_ALIGN - addr % P2B_ARENA_ALIGN) % P2B_ARENA_ALIGN;
    if (p2b_shared_model_init(mem, need, &c, &model_) != P2B_OK) model_ = nullptr;
    std::mt19937_64 rng(7);
    std::normal_distribution<double> g(0.0, 1.0);
    pool_.resize(static_cast<size_t>(kPool) * k * d);
    for (double& v : pool_) v = g(rng) / std::sqrt(static_cast<double>(d));
    // Some history, so the factor is not the initial diagonal.
    for (uint32_t i = 0; model_ != nullptr && i < 4 * d; ++i) {
      if (p2b_shared_model_learn(model_, items(i), d, 0.5) != P2B_OK) model_ = nullptr;
    }
  }
  bool ready(benchmark::State& state) const {
    if (model_ == nullptr) state.SkipWithError("set-up failed");
    return model_ != nullptr;
  }
  p2b_shared_model* model() { return model_; }
  const double* items(size_t i) const {
    return pool_.data() + (i % kPool) * static_cast<size_t>(k_) * d_;
  }
  uint32_t d() const { return d_; }
  uint32_t k() const { return k_; }
  size_t footprint() const { return arena_.size() - P2B_ARENA_ALIGN; }

 private:
  static constexpr uint32_t kPool = 64;
  uint32_t d_;
  uint32_t k_;
  std::vector<unsigned char> arena_;
  std::vector<double> pool_;
  p2b_shared_model* model_ = nullptr;
};

void report(benchmark::State& state, const BenchModel& m, double madds) {
  using benchmark::Counter;
  const double floor_seconds = madds / fma_rate().madds_per_second;
  state.counters["madds_floor"] = madds;
  state.counters["floor_ns"] = floor_seconds * 1e9;
  state.counters["floor_share"] = Counter(floor_seconds, Counter::kIsIterationInvariantRate);
  state.counters["arena_bytes"] =
      Counter(static_cast<double>(m.footprint()), Counter::kDefaults, Counter::kIs1024);
  state.SetLabel(fma_rate().isa);
}

double decide_floor(uint32_t d, uint32_t k, uint32_t policy) {
  const double dd = static_cast<double>(d);
  return policy == P2B_POLICY_LINTS ? dd * dd / 2 + static_cast<double>(k) * dd
                                    : static_cast<double>(k) * dd * dd / 2;
}

void run(benchmark::State& state, bool with_reward) {
  const auto d = static_cast<uint32_t>(state.range(0));
  const auto k = static_cast<uint32_t>(state.range(1));
  const auto policy = static_cast<uint32_t>(state.range(2));
  const auto precision = static_cast<uint32_t>(state.range(3));
  BenchModel m(d, k, policy, precision);
  if (!m.ready(state)) return;
  size_t i = 0;
  for (auto _ : state) {
    uint32_t item = 0;
    uint64_t id = 0;
    p2b_status st = p2b_shared_model_decide(m.model(), m.items(i++), k, d, &item, &id);
    if (st == P2B_OK && with_reward) st = p2b_shared_model_reward(m.model(), id, 0.5);
    if (st != P2B_OK) {
      state.SkipWithError(p2b_status_str(st));
      break;
    }
    benchmark::DoNotOptimize(item);
  }
  const double dd = static_cast<double>(d);
  report(state, m, decide_floor(d, k, policy) + (with_reward ? 2 * dd * dd : 0.0));
}

void BM_SharedDecide(benchmark::State& state) {
  run(state, false);
}
void BM_SharedDecideReward(benchmark::State& state) {
  run(state, true);
}

// (d, K) of vertical federation's synthetic set-up and around it; both
// policies; f64 (the active party's) and f32.
void shapes(benchmark::internal::Benchmark* b) {
  const int64_t dk[][2] = {{20, 10}, {100, 10}, {100, 100}, {300, 10}};
  for (const auto& p : dk) {
    for (const int64_t policy : {P2B_POLICY_LINUCB, P2B_POLICY_LINTS}) {
      for (const int64_t precision : {P2B_PRECISION_F64, P2B_PRECISION_F32}) {
        b->Args({p[0], p[1], policy, precision});
      }
    }
  }
  b->ArgNames({"d", "K", "lints", "f64"});
}

BENCHMARK(BM_SharedDecide)->Apply(shapes);
BENCHMARK(BM_SharedDecideReward)->Apply(shapes);

}  // namespace

BENCHMARK_MAIN();
