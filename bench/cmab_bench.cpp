// The P-FCB agent through the C API (p2b_cmab_*): one round (decide, the
// oracle on m UCBs, observe) past exploration, a release round (2m Gaussian
// draws with the seeded generator and with the system CSPRNG, and the
// share's encoding), applying a peer's share (decode and m checks), and
// saving and restoring the agent's state.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "p2b.h"

namespace {

constexpr int kReleasesPerAgent = 60;

class BenchAgent {
 public:
  BenchAgent(uint32_t m, uint32_t rng_mode, uint64_t window_start) : m_(m) {
    std::mt19937_64 gen(3);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    cost_.resize(m);
    capacity_.resize(m);
    quality_.resize(m);
    for (uint32_t i = 0; i < m; ++i) {
      cost_[i] = u(gen);
      quality_[i] = u(gen);
      capacity_[i] = 1 + static_cast<uint32_t>(gen() % 50);
    }
    p2b_cmab_config c;
    if (p2b_cmab_config_default(&c) != P2B_OK) return;
    c.producers = m;
    c.cost = cost_.data();
    c.capacity = capacity_.data();
    c.rng_mode = rng_mode;
    c.window_start = window_start;
    c.window_stop = ~0ULL;
    c.horizon = ~0ULL;
    c.schedule = P2B_CMAB_SCHEDULE_EVERY_ROUND;
    // With T = 2^64 the split allows 64 releases; callers start a fresh
    // agent (untimed) before the budget stops one.
    c.epsilon = 1.0;
    c.max_peers = 128;  // a fresh sender agent per 60 shares gets its own index
    c.agents = 10;
    size_t need = 0;
    if (p2b_cmab_footprint(&c, &need) != P2B_OK) return;
    arena_.resize(need + P2B_ARENA_ALIGN);
    const auto addr = reinterpret_cast<uintptr_t>(arena_.data());
    void* mem = arena_.data() + (P2B_ARENA_ALIGN - addr % P2B_ARENA_ALIGN) % P2B_ARENA_ALIGN;
    if (p2b_cmab_init(mem, need, &c, &agent_) != P2B_OK) agent_ = nullptr;
    units_.resize(m);
    good_.resize(m);
  }
  bool ok() const { return agent_ != nullptr; }
  // One round with good = floor(q * units): deterministic, so the oracle
  // sees a realistic, settling history.
  bool round() {
    if (p2b_cmab_decide(agent_, units_.data(), m_) != P2B_OK) return false;
    for (uint32_t i = 0; i < m_; ++i) {
      good_[i] = static_cast<uint32_t>(std::floor(quality_[i] * units_[i]));
    }
    return p2b_cmab_observe(agent_, good_.data(), m_) == P2B_OK;
  }
  p2b_cmab* agent() { return agent_; }

 private:
  uint32_t m_;
  std::vector<double> cost_;
  std::vector<uint32_t> capacity_;
  std::vector<double> quality_;
  std::vector<unsigned char> arena_;
  std::vector<uint32_t> units_;
  std::vector<uint32_t> good_;
  p2b_cmab* agent_ = nullptr;
};

void BM_CmabRound(benchmark::State& state) {
  const auto m = static_cast<uint32_t>(state.range(0));
  BenchAgent a(m, P2B_RNG_SEEDED, ~0ULL);  // never releases
  for (int t = 0; a.ok() && t < 1000; ++t) {
    if (!a.round()) a = BenchAgent(0, 0, 0);
  }
  if (!a.ok()) {
    state.SkipWithError("agent set-up failed");
    return;
  }
  for (auto _ : state) {
    if (!a.round()) state.SkipWithError("round failed");
  }
}

void BM_CmabReleaseRound(benchmark::State& state) {
  const auto m = static_cast<uint32_t>(state.range(0));
  const auto mode = static_cast<uint32_t>(state.range(1));
  BenchAgent a(m, mode, 1);  // every round releases
  if (!a.ok()) {
    state.SkipWithError("agent set-up failed");
    return;
  }
  std::vector<uint8_t> share(p2b_cmab_share_size(m));
  int releases = 0;
  for (auto _ : state) {
    if (++releases == kReleasesPerAgent) {
      state.PauseTiming();
      a = BenchAgent(m, mode, 1);
      releases = 0;
      state.ResumeTiming();
    }
    size_t n = 0;
    if (!a.round() || p2b_cmab_poll_share(a.agent(), share.data(), share.size(), &n) != P2B_OK) {
      state.SkipWithError("release failed");
    }
  }
  state.SetLabel(mode == P2B_RNG_SEEDED ? "seeded" : "system CSPRNG");
}

void BM_CmabApplyShare(benchmark::State& state) {
  const auto m = static_cast<uint32_t>(state.range(0));
  BenchAgent sender(m, P2B_RNG_SEEDED, 1);
  BenchAgent receiver(m, P2B_RNG_SEEDED, ~0ULL);
  if (!sender.ok() || !receiver.ok()) {
    state.SkipWithError("agent set-up failed");
    return;
  }
  // Enough shares for the loop, each with a rising release number.
  constexpr int kShares = 4096;
  const size_t size = p2b_cmab_share_size(m);
  std::vector<uint8_t> shares(kShares * size);
  for (int k = 0; k < kShares; ++k) {
    size_t n = 0;
    if (k > 0 && k % kReleasesPerAgent == 0) sender = BenchAgent(m, P2B_RNG_SEEDED, 1);
    if (!sender.round() ||
        p2b_cmab_poll_share(sender.agent(), &shares[k * size], size, &n) != P2B_OK) {
      state.SkipWithError("sender failed");
      return;
    }
  }
  for (int t = 0; t < 200; ++t) (void)receiver.round();
  int k = 0;
  for (auto _ : state) {
    if (k == kShares) {
      state.PauseTiming();
      receiver = BenchAgent(m, P2B_RNG_SEEDED, ~0ULL);
      for (int t = 0; t < 200; ++t) (void)receiver.round();
      k = 0;
      state.ResumeTiming();
    }
    uint32_t accepted = 0;
    const auto sender_index = static_cast<uint32_t>(k / kReleasesPerAgent);
    if (p2b_cmab_apply_share(receiver.agent(), sender_index, &shares[k * size], size, &accepted,
                             nullptr) != P2B_OK) {
      state.SkipWithError("apply failed");
    }
    ++k;
    benchmark::DoNotOptimize(accepted);
  }
}

}  // namespace

// Saving the state a restart needs (MAC included) and restoring it (MAC,
// then every value checked twice: validate, then apply), after 1,000 rounds.
void BM_CmabSave(benchmark::State& state) {
  const auto m = static_cast<uint32_t>(state.range(0));
  BenchAgent a(m, P2B_RNG_SEEDED, ~0ULL);
  for (int t = 0; a.ok() && t < 1000; ++t) {
    if (!a.round()) a = BenchAgent(0, 0, 0);
  }
  size_t n = 0;
  if (!a.ok() || p2b_cmab_save_size(a.agent(), &n) != P2B_OK) {
    state.SkipWithError("agent set-up failed");
    return;
  }
  const uint8_t key[P2B_STATE_KEY_BYTES] = {7};
  std::vector<uint8_t> saved(n);
  const bool restore = state.range(1) != 0;
  size_t written = 0;
  if (p2b_cmab_save(a.agent(), key, saved.data(), n, &written) != P2B_OK) {
    state.SkipWithError("save failed");
    return;
  }
  for (auto _ : state) {
    const p2b_status st = restore ? p2b_cmab_restore(a.agent(), key, saved.data(), n)
                                  : p2b_cmab_save(a.agent(), key, saved.data(), n, &written);
    if (st != P2B_OK) state.SkipWithError("save/restore failed");
  }
  state.counters["bytes"] = static_cast<double>(n);
}

BENCHMARK(BM_CmabRound)->Arg(8)->Arg(30)->Arg(64);
BENCHMARK(BM_CmabSave)
    ->ArgNames({"m", "restore"})
    ->Args({30, 0})
    ->Args({30, 1})
    ->Args({64, 0})
    ->Args({64, 1});
BENCHMARK(BM_CmabReleaseRound)
    ->Args({30, P2B_RNG_SEEDED})
    ->Args({30, P2B_RNG_SYSTEM})
    ->Args({64, P2B_RNG_SEEDED});
BENCHMARK(BM_CmabApplyShare)->Arg(30)->Arg(64);
BENCHMARK_MAIN();
