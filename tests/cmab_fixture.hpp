// The P-FCB agent tests' shared set-up: an agent in its own arena, built
// through the C API, and one round played or one share polled.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "p2b.h"

namespace cmab_fixture {

struct Agent {
  std::vector<double> cost;
  std::vector<uint32_t> capacity;
  std::vector<unsigned char> arena;
  size_t size = 0;
  p2b_cmab* a = nullptr;

  // The arena's bytes: a call that fails must leave them as they were.
  std::vector<unsigned char> bytes() const {
    const auto* p = reinterpret_cast<const unsigned char*>(a);
    return {p, p + size};
  }
};

inline p2b_cmab_config config(uint32_t m) {
  p2b_cmab_config c;
  EXPECT_EQ(p2b_cmab_config_default(&c), P2B_OK);
  c.producers = m;
  c.rng_mode = P2B_RNG_SEEDED;
  c.seed = 5;
  c.max_peers = 4;
  c.agents = 4;
  return c;
}

inline Agent make(p2b_cmab_config c, uint32_t capacity = 10) {
  Agent out;
  out.cost.assign(c.producers, 0.3);
  out.capacity.assign(c.producers, capacity);
  c.cost = out.cost.data();
  c.capacity = out.capacity.data();
  EXPECT_EQ(p2b_cmab_footprint(&c, &out.size), P2B_OK);
  out.arena.assign(out.size + P2B_ARENA_ALIGN, 0);
  auto addr = reinterpret_cast<uintptr_t>(out.arena.data());
  void* mem = out.arena.data() + (P2B_ARENA_ALIGN - addr % P2B_ARENA_ALIGN) % P2B_ARENA_ALIGN;
  EXPECT_EQ(p2b_cmab_init(mem, out.size, &c, &out.a), P2B_OK);
  return out;
}

// One round in which every procured unit is good.
inline void play_round(Agent& g, uint32_t m) {
  std::vector<uint32_t> units(m);
  ASSERT_EQ(p2b_cmab_decide(g.a, units.data(), m), P2B_OK);
  ASSERT_EQ(p2b_cmab_observe(g.a, units.data(), m), P2B_OK);
}

inline std::vector<uint8_t> poll(Agent& g, p2b_status* st) {
  std::vector<uint8_t> buf(p2b_cmab_share_size(P2B_CMAB_MAX_PRODUCERS));
  size_t n = 0;
  *st = p2b_cmab_poll_share(g.a, buf.data(), buf.size(), &n);
  buf.resize(*st == P2B_OK ? n : 0);
  return buf;
}

}  // namespace cmab_fixture
