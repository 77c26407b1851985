// Save/restore: a restored agent continues exactly where the saved one was,
// and anything truncated, corrupted or foreign is refused without effect.
#include <gtest/gtest.h>

#include "checksum.hpp"
#include "p2b/config.hpp"
#include "test_support.hpp"

namespace {

constexpr uint32_t kDim = 5;
constexpr uint32_t kArms = 4;

p2b_config state_config(uint32_t policy = P2B_POLICY_LINUCB) {
  p2b_config cfg = p2b_test::base_config(kDim, kArms, 16, 31);
  cfg.policy = policy;
  cfg.window = 4;
  cfg.pending_capacity = 6;
  return cfg;
}

// Drives `n` steps, leaving some decisions unrewarded and reports unpolled so
// that every part of the state is non-trivial.
void drive(p2b_agent* agent, std::mt19937_64& env, int n, std::vector<uint64_t>* open_ids) {
  for (int i = 0; i < n; ++i) {
    const std::vector<float> x = p2b_test::simplex_point(env, kDim);
    uint32_t a = 0;
    uint64_t id = 0;
    ASSERT_EQ(p2b_agent_decide(agent, x.data(), kDim, &a, &id), P2B_OK);
    if (i % 3 == 2) {
      open_ids->push_back(id);
    } else {
      ASSERT_EQ(p2b_agent_reward(agent, id, (a + i) % 2 ? 1.0F : 0.0F), P2B_OK);
    }
  }
}

struct Trace {
  std::vector<uint32_t> actions;
  std::vector<uint32_t> report_codes;
  bool operator==(const Trace& o) const {
    return actions == o.actions && report_codes == o.report_codes;
  }
};

Trace continue_run(p2b_agent* agent, uint64_t env_seed, const std::vector<uint64_t>& open_ids) {
  Trace tr;
  for (uint64_t id : open_ids) p2b_agent_reward(agent, id, 1.0F);  // late rewards still land
  std::mt19937_64 env(env_seed);
  for (int i = 0; i < 400; ++i) {
    const std::vector<float> x = p2b_test::simplex_point(env, kDim);
    uint32_t a = 0;
    uint64_t id = 0;
    EXPECT_EQ(p2b_agent_decide(agent, x.data(), kDim, &a, &id), P2B_OK);
    EXPECT_EQ(p2b_agent_reward(agent, id, a == 1 ? 1.0F : 0.0F), P2B_OK);
    tr.actions.push_back(a);
    p2b_report rep;
    while (p2b_agent_poll_tuple(agent, &rep) == P2B_OK) tr.report_codes.push_back(rep.code);
  }
  return tr;
}

class StateRoundTrip : public ::testing::TestWithParam<uint32_t> {};

TEST_P(StateRoundTrip, SaveRestoreGivesIdenticalDecisions) {
  auto original = p2b_test::make_agent(state_config(GetParam()));
  std::mt19937_64 env(1);
  std::vector<uint64_t> open_ids;
  drive(original.agent, env, 103, &open_ids);
  const std::vector<uint8_t> blob = p2b_test::saved(original.agent);

  // "Restart": a brand-new arena and agent, then restore.
  auto restarted = p2b_test::make_agent(state_config(GetParam()));
  ASSERT_EQ(p2b_agent_restore(restarted.agent, blob.data(), blob.size()), P2B_OK);
  EXPECT_EQ(p2b_test::saved(restarted.agent), blob);
  std::vector<uint64_t> still_open(open_ids.end() - 2, open_ids.end());
  EXPECT_TRUE(continue_run(original.agent, 9, still_open) ==
              continue_run(restarted.agent, 9, still_open));
}

INSTANTIATE_TEST_SUITE_P(Policies, StateRoundTrip,
                         ::testing::Values(P2B_POLICY_LINUCB, P2B_POLICY_LINTS));

class StateRejection : public ::testing::Test {
 protected:
  void SetUp() override {
    auto src = p2b_test::make_agent(state_config());
    std::mt19937_64 env(2);
    std::vector<uint64_t> open;
    drive(src.agent, env, 50, &open);
    blob_ = p2b_test::saved(src.agent);
    target_ = p2b_test::make_agent(state_config());
    std::mt19937_64 env2(3);
    drive(target_.agent, env2, 20, &open);
    before_ = p2b_test::saved(target_.agent);
  }
  void expect_unchanged() { EXPECT_EQ(p2b_test::saved(target_.agent), before_); }
  // Rewrites the trailing CRC so that only the deliberate change remains.
  static void reseal(std::vector<uint8_t>* b) {
    const uint32_t crc = p2b::crc32(b->data(), b->size() - 4);
    for (int i = 0; i < 4; ++i) (*b)[b->size() - 4 + i] = static_cast<uint8_t>(crc >> (8 * i));
  }
  std::vector<uint8_t> blob_;
  std::vector<uint8_t> before_;
  p2b_test::TestAgent target_;
};

TEST_F(StateRejection, EveryTruncationIsRejected) {
  for (size_t n = 0; n < blob_.size(); ++n) {
    ASSERT_EQ(p2b_agent_restore(target_.agent, blob_.data(), n), P2B_ERR_CORRUPT_STATE) << n;
  }
  expect_unchanged();
}

TEST_F(StateRejection, TrailingGarbageIsRejected) {
  std::vector<uint8_t> longer = blob_;
  longer.push_back(0);
  EXPECT_EQ(p2b_agent_restore(target_.agent, longer.data(), longer.size()), P2B_ERR_CORRUPT_STATE);
  expect_unchanged();
}

TEST_F(StateRejection, EverySingleByteCorruptionIsRejected) {
  for (size_t i = 0; i < blob_.size(); ++i) {
    std::vector<uint8_t> bad = blob_;
    bad[i] ^= 0x5A;
    ASSERT_TRUE(p2b_is_error(p2b_agent_restore(target_.agent, bad.data(), bad.size()))) << i;
  }
  expect_unchanged();
}

TEST_F(StateRejection, NewerFormatVersionIsUnsupported) {
  std::vector<uint8_t> bad = blob_;
  bad[4] = 2;  // format version, low byte
  reseal(&bad);
  EXPECT_EQ(p2b_agent_restore(target_.agent, bad.data(), bad.size()), P2B_ERR_UNSUPPORTED_VERSION);
  expect_unchanged();
}

TEST_F(StateRejection, StateOfAnotherConfigurationIsRefused) {
  p2b_config other = state_config();
  other.alpha = 2.0;
  auto different = p2b_test::make_agent(other);
  const auto before = p2b_test::saved(different.agent);
  EXPECT_EQ(p2b_agent_restore(different.agent, blob_.data(), blob_.size()), P2B_ERR_STATE_MISMATCH);
  EXPECT_EQ(p2b_test::saved(different.agent), before);
}

TEST_F(StateRejection, StateOfAnotherCodebookIsRefused) {
  auto different = p2b_test::make_agent(state_config(), /*codebook_seed=*/8);
  EXPECT_EQ(p2b_agent_restore(different.agent, blob_.data(), blob_.size()), P2B_ERR_STATE_MISMATCH);
}

TEST_F(StateRejection, WellSealedButImpossibleValuesAreRejected) {
  // Header is 20 bytes; the body opens with the RNG state (4*8 + 8 + 4 + 4),
  // then next_id (8), reports, windows, dropped (3*8), model version (8),
  // then window_len (4).
  const size_t window_len_at = 20 + 48 + 8 + 24 + 8;
  std::vector<uint8_t> bad = blob_;
  bad[window_len_at] = 200;  // window_len beyond the window of 4
  reseal(&bad);
  EXPECT_EQ(p2b_agent_restore(target_.agent, bad.data(), bad.size()), P2B_ERR_CORRUPT_STATE);

  bad = blob_;
  const size_t first_factor_at = window_len_at + 12;
  const p2b::real negative = -0.5;  // L00 < 0; saved little-endian like the host
  std::memcpy(&bad[first_factor_at], &negative, sizeof negative);
  reseal(&bad);
  EXPECT_EQ(p2b_agent_restore(target_.agent, bad.data(), bad.size()), P2B_ERR_CORRUPT_STATE);
  expect_unchanged();
}

TEST_F(StateRejection, SmallBufferIsRefusedOnSave) {
  std::vector<uint8_t> small(blob_.size() - 1);
  size_t written = 123;
  EXPECT_EQ(p2b_agent_save(target_.agent, small.data(), small.size(), &written),
            P2B_ERR_BUFFER_TOO_SMALL);
  EXPECT_EQ(written, 123U);
}

}  // namespace
