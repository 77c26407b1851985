// The P-FCB agent the cmab fuzz targets drive, shared with make_corpus so
// that the seeds fit exactly these agents: m = 4 producers with fixed costs
// and capacities, 2 peers, 3 agents, seeded; each target tunes the rest of
// the configuration (fuzz_cmab_state releases from round 3 on the aligned
// schedule; fuzz_cmab_share widens the acceptance band).
#pragma once

#include <cstdint>
#include <vector>

#include "fuzz_fixture.hpp"

namespace p2b_fuzz {

constexpr uint32_t kCmabProducers = 4;
constexpr char kCmabStateMacLabel[] = "p2b cmab state MAC key v1";

class CmabFixture {
 public:
  using Tune = void (*)(p2b_cmab_config*);
  explicit CmabFixture(Tune tune) {
    require(p2b_cmab_config_default(&cfg_) == P2B_OK, "config");
    cfg_.producers = kCmabProducers;
    cfg_.cost = cost_;
    cfg_.capacity = capacity_;
    cfg_.rng_mode = P2B_RNG_SEEDED;
    cfg_.max_peers = 2;
    cfg_.agents = 3;
    tune(&cfg_);
    require(p2b_cmab_footprint(&cfg_, &need_) == P2B_OK, "footprint");
    arena_.resize(need_ + P2B_ARENA_ALIGN);
    const auto addr = reinterpret_cast<uintptr_t>(arena_.data());
    mem_ = arena_.data() + (P2B_ARENA_ALIGN - addr % P2B_ARENA_ALIGN) % P2B_ARENA_ALIGN;
  }
  // A fresh agent in this fixture's arena (the previous one is gone).
  p2b_cmab* fresh() {
    p2b_cmab* a = nullptr;
    require(p2b_cmab_init(mem_, need_, &cfg_, &a) == P2B_OK, "init");
    return a;
  }
  // `rounds` rounds in which half of each procurement is good.
  static void play(p2b_cmab* a, int rounds) {
    uint32_t units[kCmabProducers];
    for (int t = 0; t < rounds; ++t) {
      require(p2b_cmab_decide(a, units, kCmabProducers) == P2B_OK, "decide");
      for (uint32_t& u : units) u /= 2;
      require(p2b_cmab_observe(a, units, kCmabProducers) == P2B_OK, "observe");
    }
  }
  static std::vector<uint8_t> saved(const p2b_cmab* a) {
    size_t n = 0;
    require(p2b_cmab_save_size(a, &n) == P2B_OK, "save_size");
    std::vector<uint8_t> out(n);
    size_t written = 0;
    require(p2b_cmab_save(a, keys().state_key, out.data(), out.size(), &written) == P2B_OK &&
                written == n,
            "save");
    return out;
  }
  std::vector<unsigned char> bytes() const { return {mem_, mem_ + need_}; }

 private:
  double cost_[kCmabProducers] = {0.1, 0.4, 0.2, 0.6};
  uint32_t capacity_[kCmabProducers] = {3, 5, 8, 2};
  p2b_cmab_config cfg_{};
  size_t need_ = 0;
  std::vector<unsigned char> arena_;
  unsigned char* mem_ = nullptr;
};

// fuzz_cmab_state's agent: explores 3 rounds and releases from round 3 on,
// so a few rounds give a state with releases and a share waiting.
inline void tune_for_state(p2b_cmab_config* c) {
  c->explore_rounds = 3;
  c->window_start = 3;
  c->schedule = P2B_CMAB_SCHEDULE_ALIGNED;
}

}  // namespace p2b_fuzz
