// Google Benchmark suite for the p2b C API: the per-call cost of decide, reward
// and encode, each beside the arithmetic floor of the call. docs/benchmarks.md
// explains what every benchmark measures and how to read the counters.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include <sodium.h>

#include "fma_rate.hpp"
#include "p2b.h"
#include "simplex_points.hpp"

namespace {

// Deployment keys; the decide/reward/encode paths never use them, but an
// agent cannot be set up without them.
struct BenchKeys {
  uint8_t shuffler[crypto_box_PUBLICKEYBYTES]{}, analyzer[crypto_box_PUBLICKEYBYTES]{};
  uint8_t verify[crypto_sign_PUBLICKEYBYTES]{};
  BenchKeys() {
    uint8_t box_sk[crypto_box_SECRETKEYBYTES], sign_sk[crypto_sign_SECRETKEYBYTES];
    if (sodium_init() < 0) std::abort();
    crypto_box_keypair(shuffler, box_sk);
    crypto_box_keypair(analyzer, box_sk);
    crypto_sign_keypair(verify, sign_sk);
  }
};
const BenchKeys kKeys;

// Fixed seeds, so every run times the same codebook, contexts and decisions.
constexpr uint64_t kDataSeed = 20200302;
constexpr uint64_t kAgentSeed = 7;

// Contexts are drawn before timing starts and cycled through; a power of two
// turns the cycling into a mask, and 1024 points keep the branch predictor
// from learning the argmin/argmax outcomes.
constexpr std::size_t kPoolSize = 1024;

// Logged interactions learned per arm before timing, so the Cholesky factors
// are not the initial diagonal (the cost does not depend on it, the realism does).
constexpr uint32_t kWarmupPerArm = 4;

struct Shape {
  uint32_t d;  // context dimension
  uint32_t K;  // actions
  uint32_t k;  // codebook size
};

Shape shape_of(const benchmark::State& state) {
  return Shape{static_cast<uint32_t>(state.range(0)), static_cast<uint32_t>(state.range(1)),
               static_cast<uint32_t>(state.range(2))};
}

using p2b::bench::simplex_points;

std::vector<float> coin_flips(std::size_t n, std::mt19937_64& gen) {
  std::bernoulli_distribution coin(0.5);
  std::vector<float> flips(n);
  for (float& f : flips) f = coin(gen) ? 1.0F : 0.0F;
  return flips;
}

// One seeded agent in its own posix_memalign'ed arena, with the codebook,
// contexts and rewards it is fed. Everything here runs outside the timed loop.
class BenchAgent {
 public:
  BenchAgent(const Shape& shape, p2b_policy policy) : d_(shape.d) {
    std::mt19937_64 gen(kDataSeed);
    codebook_ = simplex_points(shape.k, shape.d, gen);
    contexts_ = simplex_points(kPoolSize, shape.d, gen);
    rewards_ = coin_flips(kPoolSize, gen);

    p2b_config cfg;
    if (p2b_config_default(&cfg) != P2B_OK) std::abort();
    cfg.dim = shape.d;
    cfg.n_actions = shape.K;
    cfg.policy = policy;
    cfg.centroids = codebook_.data();
    cfg.n_codes = shape.k;
    cfg.rng_mode = P2B_RNG_SEEDED;
    cfg.seed = kAgentSeed;
    cfg.shuffler_public_key = kKeys.shuffler;
    cfg.analyzer_public_key = kKeys.analyzer;
    cfg.analyzer_verify_key = kKeys.verify;
    pending_capacity_ = cfg.pending_capacity;

    status_ = p2b_agent_footprint(&cfg, &footprint_);
    if (status_ != P2B_OK) return;
    if (posix_memalign(&arena_, P2B_ARENA_ALIGN, footprint_) != 0) {
      arena_ = nullptr;
      status_ = P2B_ERR_ARENA_TOO_SMALL;  // the closest status to "no memory"
      return;
    }
    status_ = p2b_agent_init(arena_, footprint_, &cfg, &agent_);
    if (status_ == P2B_OK) warm_up(shape.K);
  }
  ~BenchAgent() { std::free(arena_); }
  BenchAgent(const BenchAgent&) = delete;
  BenchAgent& operator=(const BenchAgent&) = delete;

  // False (and the benchmark skipped) if the agent could not be set up.
  bool ready(benchmark::State& state) const {
    if (status_ == P2B_OK) return true;
    state.SkipWithError(p2b_status_str(status_));
    return false;
  }

  p2b_agent* agent() const { return agent_; }
  uint32_t dim() const { return d_; }
  uint32_t pending_capacity() const { return pending_capacity_; }
  std::size_t footprint() const { return footprint_; }
  const float* context(std::size_t i) const { return &contexts_[(i % kPoolSize) * d_]; }
  float reward(std::size_t i) const { return rewards_[i % kPoolSize]; }

 private:
  void warm_up(uint32_t n_actions) {
    for (uint32_t i = 0; i < kWarmupPerArm * n_actions && status_ == P2B_OK; ++i) {
      status_ = p2b_agent_learn(agent_, context(i), d_, i % n_actions, reward(i));
    }
  }

  uint32_t d_;
  uint32_t pending_capacity_ = 0;
  std::vector<float> codebook_;
  std::vector<float> contexts_;
  std::vector<float> rewards_;
  void* arena_ = nullptr;
  p2b_agent* agent_ = nullptr;
  std::size_t footprint_ = 0;
  p2b_status status_ = P2B_OK;
};

// Multiply-add floors of one call. Decide whitens (LinUCB) or unwhitens (LinTS)
// x against every arm's triangular factor, d^2/2 each. It no longer encodes:
// only the tuple a window releases is encoded (k*d, once per window of t with
// probability p), which the pair's floor carries, amortised.
double decide_floor(const Shape& s) {
  return 0.5 * s.K * s.d * s.d;
}
// Rank-1 Cholesky update (d^2/2 rotations of 2 madds) plus the two triangular
// solves refreshing theta (d^2/2 each); independent of K and k.
double reward_floor(const Shape& s) {
  return 2.0 * s.d * s.d;
}
double encode_floor(const Shape& s) {
  return static_cast<double>(s.k) * s.d;
}
// The encoding of released tuples, per interaction, at the default p and t.
double released_encode_floor(const Shape& s) {
  p2b_config cfg;
  if (p2b_config_default(&cfg) != P2B_OK) std::abort();
  return encode_floor(s) * cfg.participation / cfg.window;
}

// This CPU's multiply-add rate (best ISA), measured once per process.
const p2b::bench::FmaRate& fma_rate() {
  static const p2b::bench::FmaRate rate = p2b::bench::measure_fma_rate();
  return rate;
}

// madd_rate is the floor divided by the measured CPU time per call: how many
// of the unavoidable multiply-adds the call retires per second. floor_ns is
// the floor at this CPU's measured FMA rate (fma_rate() above), and
// floor_share that over the measured time: 1 would be at the floor, 0.05 is
// 20x above it.
void report(benchmark::State& state, const BenchAgent& bench, double madds) {
  using benchmark::Counter;
  const double floor_seconds = madds / fma_rate().madds_per_second;
  state.counters["madds_floor"] = madds;
  state.counters["madd_rate"] = Counter(madds, Counter::kIsIterationInvariantRate);
  state.counters["floor_ns"] = floor_seconds * 1e9;
  state.counters["floor_share"] = Counter(floor_seconds, Counter::kIsIterationInvariantRate);
  state.SetLabel(fma_rate().isa);
  state.counters["arena_bytes"] =
      Counter(static_cast<double>(bench.footprint()), Counter::kDefaults, Counter::kIs1024);
}

void run_decide(benchmark::State& state, p2b_policy policy) {
  const Shape shape = shape_of(state);
  BenchAgent bench(shape, policy);
  if (!bench.ready(state)) return;
  std::size_t i = 0;
  for (auto _ : state) {
    uint32_t action = 0;
    uint64_t id = 0;
    // Unrewarded ids simply fall out of the pending ring, as in an app that
    // never rewards most recommendations.
    const p2b_status st =
        p2b_agent_decide(bench.agent(), bench.context(i++), bench.dim(), &action, &id);
    if (st != P2B_OK) {
      state.SkipWithError(p2b_status_str(st));
      break;
    }
    benchmark::DoNotOptimize(action);
  }
  report(state, bench, decide_floor(shape));
  if (policy == P2B_POLICY_LINTS) {
    // One N(0,1) draw per arm and dimension, each a polar-method step with a log.
    state.counters["gaussians"] = static_cast<double>(shape.K) * shape.d;
  }
}

void BM_DecideLinUCB(benchmark::State& state) {
  run_decide(state, P2B_POLICY_LINUCB);
}
void BM_DecideLinTS(benchmark::State& state) {
  run_decide(state, P2B_POLICY_LINTS);
}

// The whole interaction: decide, then reward that decision at once, then
// take what the outbox holds, as an app does: a full outbox drops windows'
// tuples unencoded, which would leave out the released encoding that the
// floor counts (and that bench/peer_decide.cpp pays). Minus
// BM_DecideLinUCB this gives the reward cost with no timer games at all.
void BM_DecideRewardPair(benchmark::State& state) {
  const Shape shape = shape_of(state);
  BenchAgent bench(shape, P2B_POLICY_LINUCB);
  if (!bench.ready(state)) return;
  std::size_t i = 0;
  for (auto _ : state) {
    uint32_t action = 0;
    uint64_t id = 0;
    p2b_status st = p2b_agent_decide(bench.agent(), bench.context(i), bench.dim(), &action, &id);
    if (st == P2B_OK) st = p2b_agent_reward(bench.agent(), id, bench.reward(i));
    p2b_tuple tuple;
    while (st == P2B_OK && p2b_agent_poll_tuple(bench.agent(), &tuple) == P2B_OK) {
    }
    if (st != P2B_OK) {
      state.SkipWithError(p2b_status_str(st));
      break;
    }
    ++i;
  }
  report(state, bench, decide_floor(shape) + reward_floor(shape) + released_encode_floor(shape));
}

// Fills `ids` with fresh decisions on the next contexts of the pool.
p2b_status decide_ring(const BenchAgent& bench, std::size_t* i, std::vector<uint64_t>* ids) {
  for (uint64_t& id : *ids) {
    uint32_t action = 0;
    const p2b_status st =
        p2b_agent_decide(bench.agent(), bench.context((*i)++), bench.dim(), &action, &id);
    if (st != P2B_OK) return st;
  }
  return P2B_OK;
}

// Reward alone. Every reward needs its own fresh decision id, and only the last
// pending_capacity ids are valid, so the timer is paused once per ring to make
// a ring's worth of decisions; the next pending_capacity iterations then time
// one reward each. BM_TimerPauseAmortised measures what the pause adds.
void BM_Reward(benchmark::State& state) {
  const Shape shape = shape_of(state);
  BenchAgent bench(shape, P2B_POLICY_LINUCB);
  if (!bench.ready(state)) return;
  std::vector<uint64_t> ids(bench.pending_capacity());
  std::size_t next = ids.size();
  std::size_t i = 0;
  for (auto _ : state) {
    p2b_status st = P2B_OK;
    if (next == ids.size()) {
      state.PauseTiming();
      st = decide_ring(bench, &i, &ids);
      next = 0;
      state.ResumeTiming();
    }
    if (st == P2B_OK) st = p2b_agent_reward(bench.agent(), ids[next], bench.reward(next));
    if (st != P2B_OK) {
      state.SkipWithError(p2b_status_str(st));
      break;
    }
    ++next;
  }
  report(state, bench, reward_floor(shape));
}

// BM_Reward's loop with the p2b calls taken out: the timer cost that lands,
// amortised, in each of its iterations.
void BM_TimerPauseAmortised(benchmark::State& state) {
  const std::size_t ring = static_cast<std::size_t>(state.range(0));
  std::size_t next = ring;
  for (auto _ : state) {
    if (next == ring) {
      state.PauseTiming();
      next = 0;
      state.ResumeTiming();
    }
    benchmark::DoNotOptimize(++next);
  }
}

void BM_Encode(benchmark::State& state) {
  const Shape shape = shape_of(state);
  BenchAgent bench(shape, P2B_POLICY_LINUCB);
  if (!bench.ready(state)) return;
  std::size_t i = 0;
  for (auto _ : state) {
    uint32_t code = 0;
    const p2b_status st = p2b_agent_encode(bench.agent(), bench.context(i++), bench.dim(), &code);
    if (st != P2B_OK) {
      state.SkipWithError(p2b_status_str(st));
      break;
    }
    benchmark::DoNotOptimize(code);
  }
  report(state, bench, encode_floor(shape));
}

// (d, K) from the issue, each with a small and a large codebook.
void shapes(benchmark::internal::Benchmark* b) {
  const int64_t dk[][2] = {{10, 10}, {20, 20}, {20, 50}};
  for (const auto& p : dk) {
    for (int64_t k : {32, 1024}) b->Args({p[0], p[1], k});
  }
  b->ArgNames({"d", "K", "k"});
}

BENCHMARK(BM_DecideLinUCB)->Apply(shapes);
BENCHMARK(BM_DecideLinTS)->Apply(shapes);
BENCHMARK(BM_DecideRewardPair)->Apply(shapes);
BENCHMARK(BM_Reward)->Apply(shapes);
BENCHMARK(BM_Encode)->Apply(shapes);
BENCHMARK(BM_TimerPauseAmortised)->Arg(16)->ArgName("ring");

}  // namespace

BENCHMARK_MAIN();
