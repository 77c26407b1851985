// Save/restore: a restored agent continues exactly where the saved one was,
// and anything truncated, corrupted or foreign is refused without effect.
#include <gtest/gtest.h>

#include <algorithm>

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
  for (uint64_t id : open_ids) {  // late rewards still land, unless the ring moved on
    const p2b_status s = p2b_agent_reward(agent, id, 1.0F);
    EXPECT_TRUE(s == P2B_OK || s == P2B_ERR_EXPIRED_DECISION) << p2b_status_str(s);
  }
  std::mt19937_64 env(env_seed);
  for (int i = 0; i < 400; ++i) {
    const std::vector<float> x = p2b_test::simplex_point(env, kDim);
    uint32_t a = 0;
    uint64_t id = 0;
    EXPECT_EQ(p2b_agent_decide(agent, x.data(), kDim, &a, &id), P2B_OK);
    EXPECT_EQ(p2b_agent_reward(agent, id, a == 1 ? 1.0F : 0.0F), P2B_OK);
    tr.actions.push_back(a);
    p2b_tuple rep;
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
  ASSERT_EQ(
      p2b_agent_restore(restarted.agent, p2b_test::test_state_key(), blob.data(), blob.size()),
      P2B_OK);
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
  static void reseal(std::vector<uint8_t>* b) { p2b_test::reseal_state(b); }
  std::vector<uint8_t> blob_;
  std::vector<uint8_t> before_;
  p2b_test::TestAgent target_;
};

TEST_F(StateRejection, EveryTruncationIsRejected) {
  for (size_t n = 0; n < blob_.size(); ++n) {
    ASSERT_EQ(p2b_agent_restore(target_.agent, p2b_test::test_state_key(), blob_.data(), n),
              P2B_ERR_CORRUPT_STATE)
        << n;
  }
  expect_unchanged();
}

TEST_F(StateRejection, TrailingGarbageIsRejected) {
  std::vector<uint8_t> longer = blob_;
  longer.push_back(0);
  EXPECT_EQ(
      p2b_agent_restore(target_.agent, p2b_test::test_state_key(), longer.data(), longer.size()),
      P2B_ERR_CORRUPT_STATE);
  expect_unchanged();
}

TEST_F(StateRejection, EverySingleByteCorruptionIsRejected) {
  for (size_t i = 0; i < blob_.size(); ++i) {
    std::vector<uint8_t> bad = blob_;
    bad[i] ^= 0x5A;
    ASSERT_TRUE(p2b_is_error(
        p2b_agent_restore(target_.agent, p2b_test::test_state_key(), bad.data(), bad.size())))
        << i;
  }
  expect_unchanged();
}

TEST_F(StateRejection, NewerFormatVersionIsUnsupported) {
  std::vector<uint8_t> bad = blob_;
  bad[p2b_test::state_layout(bad).header_at + p2b_test::kHeaderFormatAt] = 5;
  reseal(&bad);
  EXPECT_EQ(p2b_agent_restore(target_.agent, p2b_test::test_state_key(), bad.data(), bad.size()),
            P2B_ERR_UNSUPPORTED_VERSION);
  expect_unchanged();
}

// The attack the MAC stops: fewer reports in the header, so a reset ledger
// would refill the epsilon budget.
std::vector<uint8_t> with_no_reports(const std::vector<uint8_t>& blob) {
  std::vector<uint8_t> edited = blob;
  const size_t at = p2b_test::state_layout(edited).header_at + p2b_test::kHeaderReportsAt;
  std::fill(edited.begin() + static_cast<std::ptrdiff_t>(at),
            edited.begin() + static_cast<std::ptrdiff_t>(at + 8), 0);
  return edited;
}

uint64_t reports_of(const p2b_agent* agent) {
  p2b_privacy ledger{};
  EXPECT_EQ(p2b_agent_privacy(agent, &ledger), P2B_OK);
  return ledger.reports;
}

TEST_F(StateRejection, StateEditedAndRehashedWithoutTheKeyIsRefused) {
  auto src = p2b_test::make_agent(state_config());
  std::mt19937_64 env(2);
  std::vector<uint64_t> open;
  drive(src.agent, env, 50, &open);
  ASSERT_GT(reports_of(src.agent), 0U);
  const uint64_t target_reports = reports_of(target_.agent);

  // Format 2's unkeyed hash, recomputed by anyone: refused.
  std::vector<uint8_t> rehashed = with_no_reports(blob_);
  p2b_test::rehash_unkeyed(&rehashed);
  EXPECT_EQ(p2b_agent_restore(target_.agent, p2b_test::test_state_key(), rehashed.data(),
                              rehashed.size()),
            P2B_ERR_CORRUPT_STATE);
  // A correct MAC under another device's key: refused alike.
  const uint8_t other_key[P2B_STATE_KEY_BYTES] = {0x5A, 0x17, 0x42, 0x99, 0x01, 0xC3, 0x7E, 0x29};
  std::vector<uint8_t> other_mac = with_no_reports(blob_);
  p2b_test::reseal_state(&other_mac, other_key);
  EXPECT_EQ(p2b_agent_restore(target_.agent, p2b_test::test_state_key(), other_mac.data(),
                              other_mac.size()),
            P2B_ERR_CORRUPT_STATE);
  // And the state itself, under a key that is not the one it was saved with.
  EXPECT_EQ(p2b_agent_restore(target_.agent, other_key, blob_.data(), blob_.size()),
            P2B_ERR_CORRUPT_STATE);
  expect_unchanged();
  EXPECT_EQ(reports_of(target_.agent), target_reports);

  // Only the key holder can make the edit valid: the MAC is what stops it.
  std::vector<uint8_t> keyed = with_no_reports(blob_);
  p2b_test::reseal_state(&keyed);
  ASSERT_EQ(
      p2b_agent_restore(target_.agent, p2b_test::test_state_key(), keyed.data(), keyed.size()),
      P2B_OK);
  EXPECT_EQ(reports_of(target_.agent), 0U);
}

// A state of format 2 (no baseline model version, unkeyed hash), as p2b 0.1
// saved it: recognised and refused as a format this version does not read.
TEST_F(StateRejection, OlderFormatIsUnsupported) {
  const p2b_test::StateLayout at = p2b_test::state_layout(blob_);
  constexpr size_t kBaselineFieldBytes = 2 + 8;  // tag 16 (two bytes) and a fixed64
  std::vector<uint8_t> header(
      blob_.begin() + static_cast<std::ptrdiff_t>(at.header_at),
      blob_.begin() +
          static_cast<std::ptrdiff_t>(at.header_at + at.header_len - kBaselineFieldBytes));
  header[p2b_test::kHeaderFormatAt] = 2;
  std::vector<uint8_t> old(blob_.begin(), blob_.begin() + 4);
  for (size_t n = header.size();; n >>= 7) {  // the header's new length, as a varint
    old.push_back(static_cast<uint8_t>((n & 0x7F) | (n >= 0x80 ? 0x80 : 0)));
    if (n < 0x80) break;
  }
  old.insert(old.end(), header.begin(), header.end());
  old.insert(old.end(), blob_.begin() + static_cast<std::ptrdiff_t>(at.header_at + at.header_len),
             blob_.end());
  p2b_test::rehash_unkeyed(&old);
  EXPECT_EQ(p2b_agent_restore(target_.agent, p2b_test::test_state_key(), old.data(), old.size()),
            P2B_ERR_UNSUPPORTED_VERSION);
  // The same bytes with one more edit no longer pass for an older state.
  old[old.size() - 40] ^= 1;
  EXPECT_EQ(p2b_agent_restore(target_.agent, p2b_test::test_state_key(), old.data(), old.size()),
            P2B_ERR_CORRUPT_STATE);
  expect_unchanged();
}

TEST_F(StateRejection, StateOfAnotherConfigurationIsRefused) {
  p2b_config other = state_config();
  other.alpha = 2.0;
  auto different = p2b_test::make_agent(other);
  const auto before = p2b_test::saved(different.agent);
  EXPECT_EQ(
      p2b_agent_restore(different.agent, p2b_test::test_state_key(), blob_.data(), blob_.size()),
      P2B_ERR_STATE_MISMATCH);
  EXPECT_EQ(p2b_test::saved(different.agent), before);
}

TEST_F(StateRejection, StateOfAnotherCodebookIsRefused) {
  auto different = p2b_test::make_agent(state_config(), /*codebook_seed=*/8);
  EXPECT_EQ(
      p2b_agent_restore(different.agent, p2b_test::test_state_key(), blob_.data(), blob_.size()),
      P2B_ERR_STATE_MISMATCH);
}

TEST_F(StateRejection, WellSealedButImpossibleValuesAreRejected) {
  const p2b_test::StateLayout at = p2b_test::state_layout(blob_);
  std::vector<uint8_t> bad = blob_;
  bad[at.header_at + p2b_test::kHeaderWindowLenAt] = 200;  // beyond the window of 4
  reseal(&bad);
  EXPECT_EQ(p2b_agent_restore(target_.agent, p2b_test::test_state_key(), bad.data(), bad.size()),
            P2B_ERR_CORRUPT_STATE);

  bad = blob_;
  const double negative = -0.5;  // L00 < 0, as a little-endian double
  std::memcpy(&bad[at.first_column_values_at], &negative, sizeof negative);
  reseal(&bad);
  EXPECT_EQ(p2b_agent_restore(target_.agent, p2b_test::test_state_key(), bad.data(), bad.size()),
            P2B_ERR_CORRUPT_STATE);

  // Found by fuzz_state: a huge but finite factor overflowed float on the next
  // reward. Factors beyond the bounds of honest statistics are refused.
  bad = blob_;
  const double huge = 1e20;
  std::memcpy(&bad[at.first_column_values_at + sizeof(double)], &huge, sizeof huge);
  reseal(&bad);
  EXPECT_EQ(p2b_agent_restore(target_.agent, p2b_test::test_state_key(), bad.data(), bad.size()),
            P2B_ERR_CORRUPT_STATE);
  expect_unchanged();
}

// Where the value of the first PendingDecision's code field sits in a blob.
std::size_t first_pending_code_at(const std::vector<uint8_t>& blob) {
  const p2b_test::StateLayout at = p2b_test::state_layout(blob);
  std::size_t pos = at.header_at + at.header_len;
  for (uint32_t m = 0; m < kArms * (kDim + 1); ++m) {  // the arms' columns
    std::size_t len = 0;
    pos += p2b_test::read_varint(blob, pos, &len);
    pos += len;
  }
  std::size_t len = 0;
  pos += p2b_test::read_varint(blob, pos, &len);  // the first PendingDecision
  return pos + 9 + 5 + 1;                         // after id and action
}

// Codes are recomputed from the contexts when saving, so a saved pending
// code must be what its context encodes to: a different one is refused.
TEST_F(StateRejection, APendingCodeItsContextDoesNotEncodeToIsRejected) {
  const std::size_t code_at = first_pending_code_at(blob_);
  ASSERT_EQ(blob_[code_at - 1], 0x1d) << "tag of PendingDecision.code";
  uint32_t code = 0;
  std::memcpy(&code, &blob_[code_at], sizeof code);
  std::vector<uint8_t> bad = blob_;
  const uint32_t other = (code + 1) % 16;  // another valid code of the 16
  std::memcpy(&bad[code_at], &other, sizeof other);
  reseal(&bad);
  EXPECT_EQ(p2b_agent_restore(target_.agent, p2b_test::test_state_key(), bad.data(), bad.size()),
            P2B_ERR_CORRUPT_STATE);
  expect_unchanged();
  // The untouched blob restores, so the refusal is the code's alone.
  EXPECT_EQ(
      p2b_agent_restore(target_.agent, p2b_test::test_state_key(), blob_.data(), blob_.size()),
      P2B_OK);
}

// Found by fuzz_state: an all-zero pending context has no normalised form,
// and encoding it to check its code divided zero by zero. A saved context is
// normalised; anything else is refused before it is encoded.
TEST_F(StateRejection, APendingContextThatIsNotNormalisedIsRejected) {
  const std::size_t code_at = first_pending_code_at(blob_);
  const std::size_t state_at = code_at + 4 + 1;
  ASSERT_EQ(blob_[state_at - 1], 0x25) << "tag of PendingDecision.state";
  uint32_t slot_state = 0;
  std::memcpy(&slot_state, &blob_[state_at], sizeof slot_state);
  ASSERT_NE(slot_state, 0U) << "the first slot holds a decision";
  const std::size_t context_at = state_at + 4 + 2;  // tag 0x2a and length kDim * 8
  ASSERT_EQ(blob_[context_at - 2], 0x2a) << "tag of PendingDecision.context";
  ASSERT_EQ(blob_[context_at - 1], kDim * sizeof(double));
  // Twice the saved context encodes to the same code, so only the check of
  // its sum refuses it; zero has no code at all.
  for (const double scale : {0.0, 2.0}) {
    std::vector<uint8_t> bad = blob_;
    for (uint32_t k = 0; k < kDim; ++k) {
      double value = 0.0;
      std::memcpy(&value, &bad[context_at + k * sizeof(double)], sizeof value);
      value *= scale;
      std::memcpy(&bad[context_at + k * sizeof(double)], &value, sizeof value);
    }
    reseal(&bad);
    EXPECT_EQ(p2b_agent_restore(target_.agent, p2b_test::test_state_key(), bad.data(), bad.size()),
              P2B_ERR_CORRUPT_STATE)
        << scale;
  }
  expect_unchanged();
}

TEST_F(StateRejection, SmallBufferIsRefusedOnSave) {
  std::vector<uint8_t> small(blob_.size() - 1);
  size_t written = 123;
  EXPECT_EQ(p2b_agent_save(target_.agent, p2b_test::test_state_key(), small.data(), small.size(),
                           &written),
            P2B_ERR_BUFFER_TOO_SMALL);
  EXPECT_EQ(written, 123U);
}

}  // namespace

namespace {

std::vector<uint8_t> encrypted(const p2b_agent* agent, const uint8_t* key) {
  size_t plain = 0;
  EXPECT_EQ(p2b_agent_save_size(agent, &plain), P2B_OK);
  std::vector<uint8_t> buf(plain + P2B_STATE_ENCRYPTION_OVERHEAD);
  size_t written = 0;
  EXPECT_EQ(p2b_agent_save_encrypted(agent, key, buf.data(), buf.size() - 1, &written),
            P2B_ERR_BUFFER_TOO_SMALL);
  EXPECT_EQ(p2b_agent_save_encrypted(agent, key, buf.data(), buf.size(), &written), P2B_OK);
  EXPECT_EQ(written, buf.size());
  return buf;
}

TEST(EncryptedState, RoundTripGivesIdenticalDecisions) {
  uint8_t key[P2B_STATE_KEY_BYTES];
  randombytes_buf(key, sizeof key);
  auto original = p2b_test::make_agent(state_config(P2B_POLICY_LINTS));
  std::mt19937_64 env(4);
  std::vector<uint64_t> open_ids;
  drive(original.agent, env, 77, &open_ids);
  std::vector<uint8_t> box = encrypted(original.agent, key);
  auto restarted = p2b_test::make_agent(state_config(P2B_POLICY_LINTS));
  ASSERT_EQ(p2b_agent_restore_encrypted(restarted.agent, key, box.data(), box.size()), P2B_OK);
  EXPECT_EQ(p2b_test::saved(restarted.agent), p2b_test::saved(original.agent));
  EXPECT_TRUE(continue_run(original.agent, 3, {}) == continue_run(restarted.agent, 3, {}));
}

TEST(EncryptedState, FreshNonceEachTimeAndNothingInTheClear) {
  uint8_t key[P2B_STATE_KEY_BYTES] = {7};
  auto t = p2b_test::make_agent(state_config());
  const std::vector<uint8_t> a = encrypted(t.agent, key);
  const std::vector<uint8_t> b = encrypted(t.agent, key);
  EXPECT_NE(a, b);
  // The plaintext's own magic must not survive encryption.
  const std::vector<uint8_t> plain = p2b_test::saved(t.agent);
  EXPECT_EQ(std::search(a.begin(), a.end(), plain.begin(), plain.begin() + 16), a.end());
}

TEST(EncryptedState, WrongKeyTamperingAndPlainRestoreAreRefused) {
  uint8_t key[P2B_STATE_KEY_BYTES] = {1, 2, 3};
  uint8_t other[P2B_STATE_KEY_BYTES] = {1, 2, 4};
  auto src = p2b_test::make_agent(state_config());
  std::mt19937_64 env(5);
  std::vector<uint64_t> open_ids;
  drive(src.agent, env, 40, &open_ids);
  const std::vector<uint8_t> good = encrypted(src.agent, key);
  auto target = p2b_test::make_agent(state_config());
  const std::vector<uint8_t> before = p2b_test::saved(target.agent);

  std::vector<uint8_t> copy = good;
  EXPECT_EQ(p2b_agent_restore_encrypted(target.agent, other, copy.data(), copy.size()),
            P2B_ERR_CORRUPT_STATE);
  for (size_t i = 0; i < good.size(); i += 5) {
    copy = good;
    copy[i] ^= 0x10;
    ASSERT_EQ(p2b_agent_restore_encrypted(target.agent, key, copy.data(), copy.size()),
              P2B_ERR_CORRUPT_STATE)
        << i;
  }
  copy = good;
  EXPECT_EQ(p2b_agent_restore_encrypted(target.agent, key, copy.data(), copy.size() - 1),
            P2B_ERR_CORRUPT_STATE);
  EXPECT_EQ(p2b_agent_restore(target.agent, p2b_test::test_state_key(), good.data(), good.size()),
            P2B_ERR_CORRUPT_STATE);
  EXPECT_EQ(p2b_test::saved(target.agent), before);
}

TEST(StateSize, IsFixedForAConfiguration) {
  auto t = p2b_test::make_agent(state_config());
  size_t fresh = 0, later = 0;
  ASSERT_EQ(p2b_agent_save_size(t.agent, &fresh), P2B_OK);
  std::mt19937_64 env(6);
  std::vector<uint64_t> open_ids;
  drive(t.agent, env, 500, &open_ids);
  ASSERT_EQ(p2b_agent_save_size(t.agent, &later), P2B_OK);
  EXPECT_EQ(fresh, later);
  EXPECT_EQ(p2b_test::saved(t.agent).size(), fresh);
  std::printf("[ figure ] saved state for d=%u K=%u pending=6 window=4: %zu bytes\n", kDim, kArms,
              fresh);
}

}  // namespace
