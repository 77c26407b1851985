// The arena: its size depends on the shape alone, the documented sizes hold,
// and the agent in it is position-independent (its parts find their blocks
// through relative pointers).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "p2b/agent.hpp"
#include "test_support.hpp"

namespace {

p2b::Config shape_only(uint32_t d, uint32_t k_arms, uint32_t n_codes) {
  p2b::Config cfg;  // no keys, no crypto port, no codebook, no random source
  cfg.dim = d;
  cfg.n_actions = k_arms;
  cfg.n_codes = n_codes;
  return cfg;
}

}  // namespace

TEST(ArenaLayout, FootprintNeedsOnlyTheShape) {
  const p2b::Config cfg = shape_only(10, 10, 1024);
  std::size_t from_config = 0;
  std::size_t from_shape = 0;
  ASSERT_EQ(p2b::footprint(cfg, &from_config), p2b::Status::ok);
  ASSERT_EQ(p2b::footprint(p2b::shape_of(cfg), &from_shape), p2b::Status::ok);
  EXPECT_EQ(from_config, from_shape);
  EXPECT_EQ(from_config % p2b::kArenaAlign, 0U);
  // Settings outside the shape change nothing, even when invalid.
  p2b::Config other = cfg;
  other.alpha = -1.0;
  other.participation = 2.0;
  other.round_digits = 0;
  other.policy = static_cast<p2b::Policy>(9);
  std::size_t bytes = 0;
  ASSERT_EQ(p2b::footprint(other, &bytes), p2b::Status::ok);
  EXPECT_EQ(bytes, from_config);
  // ...but init still checks everything.
  p2b_test::ArenaPtr mem = p2b_test::aligned_arena(bytes);
  p2b::Agent* agent = nullptr;
  EXPECT_EQ(p2b::Agent::init(mem.get(), bytes, cfg, &agent), p2b::Status::bad_config);
  EXPECT_EQ(agent, nullptr);
}

TEST(ArenaLayout, EveryShapeFieldOutOfRangeIsBadConfigAndWritesNothing) {
  const p2b::Shape good = p2b::shape_of(shape_only(4, 3, 8));
  std::vector<p2b::Shape> bad(12, good);
  bad[0].dim = 0;
  bad[1].dim = p2b::kMaxDim + 1;
  bad[2].n_actions = 0;
  bad[3].n_actions = p2b::kMaxActions + 1;
  bad[4].n_codes = 0;
  bad[5].n_codes = p2b::kMaxCodes + 1;
  bad[6].pending_capacity = 0;
  bad[7].pending_capacity = p2b::kMaxPending + 1;
  bad[8].outbox_capacity = 0;
  bad[9].outbox_capacity = p2b::kMaxOutbox + 1;
  bad[10].window = 0;
  bad[11].window = p2b::kMaxWindow + 1;
  for (std::size_t i = 0; i < bad.size(); ++i) {
    std::size_t bytes = 12345;
    EXPECT_EQ(p2b::footprint(bad[i], &bytes), p2b::Status::bad_config) << "case " << i;
    EXPECT_EQ(bytes, 12345U) << "case " << i;
    EXPECT_EQ(p2b::validate_shape(bad[i]), p2b::Status::bad_config) << "case " << i;
  }
  EXPECT_EQ(p2b::footprint(good, nullptr), p2b::Status::null_pointer);
}

// The sizes docs/footprint.md lists for 64-bit hosts; the arena's layout is
// part of what a refactoring must not change.
TEST(ArenaLayout, DocumentedSizesOn64BitHosts) {
  if (sizeof(void*) != 8) GTEST_SKIP() << "the table is for 64-bit hosts";
  struct Row {
    uint32_t d, k_arms, n_codes;
    std::size_t bytes_float, bytes_double;
  };
  const Row rows[] = {{5, 4, 64, 4464, 6400},
                      {10, 10, 1024, 54640, 67072},
                      {20, 50, 1024, 272832, 462512},
                      {32, 100, 4096, 1429200, 2332880},
                      {64, 10, 1024, 647120, 1030864}};
  for (const Row& r : rows) {
    std::size_t bytes = 0;
    ASSERT_EQ(p2b::footprint(shape_only(r.d, r.k_arms, r.n_codes), &bytes), p2b::Status::ok);
    EXPECT_EQ(bytes, sizeof(p2b::real) == 4 ? r.bytes_float : r.bytes_double)
        << "d=" << r.d << " K=" << r.k_arms << " k=" << r.n_codes;
  }
}

// One decision of each agent on the same context: the same action and id,
// then the same reward to both.
static void step_together(p2b_agent* x_agent, p2b_agent* y_agent, const std::vector<float>& x,
                          float reward, int step) {
  uint32_t a = 0;
  uint32_t b = 0;
  uint64_t id_a = 0;
  uint64_t id_b = 0;
  ASSERT_EQ(p2b_agent_decide(x_agent, x.data(), x.size(), &a, &id_a), P2B_OK);
  ASSERT_EQ(p2b_agent_decide(y_agent, x.data(), x.size(), &b, &id_b), P2B_OK);
  ASSERT_EQ(a, b) << "step " << step;
  ASSERT_EQ(id_a, id_b) << "step " << step;
  ASSERT_EQ(p2b_agent_reward(x_agent, id_a, reward), P2B_OK);
  ASSERT_EQ(p2b_agent_reward(y_agent, id_b, reward), P2B_OK);
}

// An arena copied elsewhere is the same agent: no block is found through an
// absolute address.
TEST(ArenaLayout, AnAgentCopiedToOtherMemoryDecidesAsTheOriginal) {
  p2b_test::TestAgent t = p2b_test::make_agent(p2b_test::base_config(6, 4, 16, 99));
  std::mt19937_64 env(3);
  for (int i = 0; i < 50; ++i) {
    const std::vector<float> x = p2b_test::simplex_point(env, 6);
    uint32_t a = 0;
    uint64_t id = 0;
    ASSERT_EQ(p2b_agent_decide(t.agent, x.data(), 6, &a, &id), P2B_OK);
    ASSERT_EQ(p2b_agent_reward(t.agent, id, (a + i) % 3 == 0 ? 1.0F : 0.0F), P2B_OK);
  }
  p2b_test::ArenaPtr copy = p2b_test::aligned_arena(t.bytes);
  std::memcpy(copy.get(), t.mem.get(), t.bytes);
  auto* moved = static_cast<p2b_agent*>(copy.get());
  for (int i = 0; i < 50; ++i) {
    ASSERT_NO_FATAL_FAILURE(step_together(t.agent, moved, p2b_test::simplex_point(env, 6),
                                          i % 2 == 0 ? 1.0F : 0.0F, i));
  }
  const std::vector<uint8_t> state = p2b_test::saved(moved);
  EXPECT_EQ(p2b_test::saved(t.agent), state);

  // With the original's memory wiped, the copy goes on as a restored agent.
  p2b_test::TestAgent reference = p2b_test::make_agent(p2b_test::base_config(6, 4, 16, 99));
  ASSERT_EQ(
      p2b_agent_restore(reference.agent, p2b_test::test_state_key(), state.data(), state.size()),
      P2B_OK);
  std::memset(t.mem.get(), 0, t.bytes);
  for (int i = 0; i < 20; ++i) {
    ASSERT_NO_FATAL_FAILURE(
        step_together(reference.agent, moved, p2b_test::simplex_point(env, 6), 1.0F, i));
  }
  EXPECT_EQ(p2b_test::saved(reference.agent), p2b_test::saved(moved));
}
