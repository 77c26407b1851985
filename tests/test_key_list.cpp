// The signed shuffler-key list: the decoder refuses every malformed field,
// an agent applies only a list signed by its pinned key, newer than the one
// it applied (also across save/restore) and not expired, and from then on
// seals to the list's current key; envelopes it sealed to a key the list
// dropped are reported as retired.
#include <gtest/gtest.h>

#include <array>

#include "key_list_support.hpp"
#include "p2b/envelope.hpp"
#include "test_support.hpp"
#include "wire/envelope_open.hpp"

namespace {

using p2b::Status;
using p2b_test::BoxPair;
using p2b_test::ListOptions;
using p2b_test::signed_list;

constexpr uint32_t kDim = 4;
constexpr uint32_t kArms = 3;

// An agent that releases a report at every reward.
p2b_test::TestAgent reporting_agent() {
  p2b_config cfg = p2b_test::base_config(kDim, kArms, 8, 3);
  cfg.window = 1;
  cfg.participation = 0.999;
  cfg.outbox_capacity = 8;
  return p2b_test::make_agent(cfg);
}

void release_report(p2b_agent* agent) {
  const float x[kDim] = {1, 2, 3, 4};
  uint32_t a = 0;
  uint64_t id = 0;
  ASSERT_EQ(p2b_agent_decide(agent, x, kDim, &a, &id), P2B_OK);
  ASSERT_EQ(p2b_agent_reward(agent, id, 1.0F), P2B_OK);
}

std::array<uint8_t, P2B_ENVELOPE_BYTES> poll(p2b_agent* agent) {
  std::array<uint8_t, P2B_ENVELOPE_BYTES> env{};
  size_t n = 0;
  EXPECT_EQ(p2b_agent_poll_envelope(agent, env.data(), env.size(), &n), P2B_OK);
  return env;
}

std::array<uint8_t, P2B_FINGERPRINT_BYTES> fingerprint(const uint8_t* pk) {
  std::array<uint8_t, P2B_FINGERPRINT_BYTES> fp{};
  EXPECT_EQ(p2b_key_fingerprint(pk, fp.data()), P2B_OK);
  return fp;
}

bool opens_with(const uint8_t* env, const BoxPair& key) {
  p2b::server::BoxKey box{};
  EXPECT_TRUE(p2b::server::make_box_key(key.pk, key.sk, &box));
  p2b::server::OuterOpened outer{};
  return p2b::server::open_outer(env, P2B_ENVELOPE_BYTES, &box, 1, &outer) ==
         p2b::server::OpenStatus::ok;
}

uint64_t list_version(const p2b_agent* agent) {
  uint64_t v = 99;
  EXPECT_EQ(p2b_agent_key_list_version(agent, &v), P2B_OK);
  return v;
}

// ---- the decoder ----

p2b::KeyList two_keys() {
  p2b::KeyList l{};
  l.version = 7;
  l.created_unix = 100;
  l.not_after_unix = 200;
  l.count = 2;
  l.current = 1;
  l.keys[0][0] = 1;
  l.keys[1][0] = 2;
  l.signer_fp[3] = 9;
  return l;
}

std::vector<uint8_t> encoded(const p2b::KeyList& l) {
  std::vector<uint8_t> b(p2b::kKeyListBytes, 0);
  EXPECT_EQ(p2b::encode_key_list(l, b.data()), Status::ok);
  return b;
}

TEST(KeyListFormat, RoundTripsEveryField) {
  const p2b::KeyList l = two_keys();
  const std::vector<uint8_t> b = encoded(l);
  EXPECT_EQ(std::memcmp(b.data(), "P2BL\x01\x00\x00\x00", 8), 0);
  p2b::KeyList back{};
  ASSERT_EQ(p2b::parse_key_list(b.data(), b.size(), &back), Status::ok);
  EXPECT_EQ(back.version, 7U);
  EXPECT_EQ(back.created_unix, 100U);
  EXPECT_EQ(back.not_after_unix, 200U);
  EXPECT_EQ(back.count, 2U);
  EXPECT_EQ(back.current, 1U);
  EXPECT_EQ(std::memcmp(back.keys, l.keys, sizeof l.keys), 0);
  EXPECT_EQ(std::memcmp(back.signer_fp, l.signer_fp, sizeof l.signer_fp), 0);
}

TEST(KeyListFormat, EveryBadFieldIsRefusedByEncoderAndDecoder) {
  struct Case {
    const char* what;
    void (*edit)(p2b::KeyList*);
  };
  const Case cases[] = {
      {"version 0", [](p2b::KeyList* l) { l->version = 0; }},
      {"no key", [](p2b::KeyList* l) { l->count = 0, l->current = 0; }},
      {"five keys", [](p2b::KeyList* l) { l->count = 5; }},
      {"current beyond the keys", [](p2b::KeyList* l) { l->current = 2; }},
      {"zero key in use", [](p2b::KeyList* l) { l->keys[0][0] = 0; }},
      {"key in an unused slot", [](p2b::KeyList* l) { l->keys[3][31] = 1; }},
      {"repeated key", [](p2b::KeyList* l) { l->keys[1][0] = 1; }},
      {"not-after before created", [](p2b::KeyList* l) { l->not_after_unix = 99; }},
  };
  for (const Case& c : cases) {
    p2b::KeyList l = two_keys();
    c.edit(&l);
    std::vector<uint8_t> b(p2b::kKeyListBytes, 0xEE);
    EXPECT_EQ(p2b::encode_key_list(l, b.data()), Status::malformed_input) << c.what;
    EXPECT_EQ(b[0], 0xEE) << c.what << ": nothing written";
    // The same bytes forged past the encoder.
    b = encoded(two_keys());
    const p2b::KeyList good = two_keys();
    b[48] = static_cast<uint8_t>(l.count);
    b[49] = static_cast<uint8_t>(l.current);
    for (int i = 0; i < 8; ++i) {
      b[8 + i] = static_cast<uint8_t>(l.version >> (8 * i));
      b[24 + i] = static_cast<uint8_t>(l.not_after_unix >> (8 * i));
    }
    std::memcpy(b.data() + 56, l.keys, sizeof l.keys);
    p2b::KeyList out = good;
    EXPECT_EQ(p2b::parse_key_list(b.data(), b.size(), &out), Status::malformed_input) << c.what;
    EXPECT_EQ(out.version, good.version) << c.what << ": output untouched";
  }
  // Not from a KeyList at all: reserved bytes, magic, format, length.
  p2b::KeyList out{};
  for (size_t at = 50; at < 56; ++at) {
    std::vector<uint8_t> b = encoded(two_keys());
    b[at] = 1;
    EXPECT_EQ(p2b::parse_key_list(b.data(), b.size(), &out), Status::malformed_input) << at;
  }
  std::vector<uint8_t> b = encoded(two_keys());
  b[3] = 'M';
  EXPECT_EQ(p2b::parse_key_list(b.data(), b.size(), &out), Status::malformed_input);
  b = encoded(two_keys());
  b[4] = 2;
  EXPECT_EQ(p2b::parse_key_list(b.data(), b.size(), &out), Status::unsupported_version);
  b = encoded(two_keys());
  for (size_t n = 0; n < b.size(); ++n) {
    EXPECT_EQ(p2b::parse_key_list(b.data(), n, &out), Status::malformed_input) << n;
  }
  b.push_back(0);
  EXPECT_EQ(p2b::parse_key_list(b.data(), b.size(), &out), Status::malformed_input);
  EXPECT_EQ(p2b::parse_key_list(nullptr, b.size(), &out), Status::null_pointer);
}

// ---- applying lists ----

TEST(KeyList, AppliedListMakesItsCurrentKeyTheOuterKeyAlsoForQueuedReports) {
  auto t = reporting_agent();
  const BoxPair next;
  release_report(t.agent);  // released to the outbox before the list
  const std::array<uint8_t, P2B_ENVELOPE_BYTES> before = poll(t.agent);
  release_report(t.agent);
  EXPECT_EQ(list_version(t.agent), 0U);

  ListOptions opt;
  opt.version = 3;
  opt.keys = {p2b_test::test_keys().shuffler_pk, next.pk};
  opt.current = 1;
  const std::vector<uint8_t> list = signed_list(opt);
  ASSERT_EQ(p2b_agent_apply_key_list(t.agent, list.data(), list.size(), 1795000000), P2B_OK);
  EXPECT_EQ(list_version(t.agent), 3U);
  p2b_fingerprints fps{};
  ASSERT_EQ(p2b_agent_fingerprints(t.agent, &fps), P2B_OK);
  EXPECT_EQ(std::memcmp(fps.shuffler, fingerprint(next.pk).data(), P2B_FINGERPRINT_BYTES), 0);

  // The report queued before the list is sealed when polled: to the new key.
  const std::array<uint8_t, P2B_ENVELOPE_BYTES> after = poll(t.agent);
  EXPECT_EQ(std::memcmp(after.data(), fps.shuffler, P2B_FINGERPRINT_BYTES), 0);
  EXPECT_TRUE(opens_with(after.data(), next));
  // The envelope sealed before to the old key: still accepted by this list.
  EXPECT_EQ(p2b_agent_envelope_key_accepted(t.agent, before.data(), before.size()), P2B_OK);
  EXPECT_EQ(p2b_agent_envelope_key_accepted(t.agent, after.data(), after.size()), P2B_OK);

  // A later list drops the old key: its envelope is retired, the new one not.
  opt.version = 4;
  opt.keys = {next.pk};
  opt.current = 0;
  const std::vector<uint8_t> only_next = signed_list(opt);
  ASSERT_EQ(p2b_agent_apply_key_list(t.agent, only_next.data(), only_next.size(), 0), P2B_OK);
  EXPECT_EQ(p2b_agent_envelope_key_accepted(t.agent, before.data(), before.size()),
            P2B_ERR_KEY_RETIRED);
  EXPECT_EQ(p2b_agent_envelope_key_accepted(t.agent, after.data(), after.size()), P2B_OK);
  EXPECT_EQ(p2b_agent_envelope_key_accepted(t.agent, after.data(), after.size() - 1),
            P2B_ERR_MALFORMED_INPUT);
}

TEST(KeyList, BeforeAnyListOnlyTheConfiguredKeyIsAccepted) {
  auto t = reporting_agent();
  release_report(t.agent);
  std::array<uint8_t, P2B_ENVELOPE_BYTES> env = poll(t.agent);
  EXPECT_EQ(p2b_agent_envelope_key_accepted(t.agent, env.data(), env.size()), P2B_OK);
  env[0] ^= 1;
  EXPECT_EQ(p2b_agent_envelope_key_accepted(t.agent, env.data(), env.size()), P2B_ERR_KEY_RETIRED);
  std::array<uint8_t, P2B_ENVELOPE_BYTES> zero{};
  EXPECT_EQ(p2b_agent_envelope_key_accepted(t.agent, zero.data(), zero.size()),
            P2B_ERR_KEY_RETIRED);
}

class KeyListRefusal : public ::testing::Test {
 protected:
  void SetUp() override {
    ListOptions opt;
    opt.version = 5;
    opt.keys = {next_.pk};
    const std::vector<uint8_t> v5 = signed_list(opt);
    ASSERT_EQ(p2b_agent_apply_key_list(t_.agent, v5.data(), v5.size(), 0), P2B_OK);
    before_ = p2b_test::saved(t_.agent);
  }
  void expect_refused(const std::vector<uint8_t>& list, uint64_t now, p2b_status want,
                      const char* what) {
    EXPECT_EQ(p2b_agent_apply_key_list(t_.agent, list.data(), list.size(), now), want) << what;
    EXPECT_EQ(p2b_test::saved(t_.agent), before_) << what << " changed the agent";
  }
  ListOptions newer() const {
    ListOptions opt;
    opt.version = 6;
    opt.keys = {other_.pk};
    return opt;
  }
  p2b_test::TestAgent t_ = reporting_agent();
  BoxPair next_, other_;
  std::vector<uint8_t> before_;
};

TEST_F(KeyListRefusal, SameOrOlderVersionIsRollback) {
  ListOptions opt = newer();
  for (uint64_t v : {5U, 4U, 1U}) {
    opt.version = v;
    expect_refused(signed_list(opt), 0, P2B_ERR_KEY_LIST_ROLLBACK, "old version");
  }
}

TEST_F(KeyListRefusal, ExpiredListIsRefusedAndTheLastSecondStillApplies) {
  ListOptions opt = newer();
  opt.not_after_unix = 1795003600;
  const std::vector<uint8_t> list = signed_list(opt);
  expect_refused(list, 1795003601, P2B_ERR_KEY_LIST_EXPIRED, "expired");
  EXPECT_EQ(p2b_agent_apply_key_list(t_.agent, list.data(), list.size(), 1795003600), P2B_OK);
}

TEST_F(KeyListRefusal, EveryBitFlipAndEveryTruncationIsRefused) {
  const std::vector<uint8_t> good = signed_list(newer());
  for (size_t i = 0; i < good.size() * 8; ++i) {
    std::vector<uint8_t> bad = good;
    bad[i / 8] ^= static_cast<uint8_t>(1U << (i % 8));
    const p2b_status s = p2b_agent_apply_key_list(t_.agent, bad.data(), bad.size(), 0);
    ASSERT_EQ(s, P2B_ERR_BAD_SIGNATURE) << "bit " << i;
  }
  for (size_t n = 0; n < good.size(); ++n) {
    ASSERT_EQ(p2b_agent_apply_key_list(t_.agent, good.data(), n, 0), P2B_ERR_MALFORMED_INPUT) << n;
  }
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  expect_refused(longer, 0, P2B_ERR_MALFORMED_INPUT, "trailing byte");
  EXPECT_EQ(p2b_test::saved(t_.agent), before_);
  EXPECT_EQ(p2b_agent_apply_key_list(t_.agent, nullptr, good.size(), 0), P2B_ERR_NULL_POINTER);
  EXPECT_EQ(p2b_agent_apply_key_list(nullptr, good.data(), good.size(), 0), P2B_ERR_NULL_POINTER);
}

TEST_F(KeyListRefusal, ListSignedByAnotherKeyOrNamingAnotherSignerIsRefused) {
  uint8_t pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
  crypto_sign_keypair(pk, sk);
  ListOptions opt = newer();
  opt.sign_sk = sk;
  expect_refused(signed_list(opt), 0, P2B_ERR_BAD_SIGNATURE, "stranger's signature");
  // The shuffler's batch-signing key is a deployment key too, but not this one's.
  opt.sign_sk = p2b_test::test_keys().shuffler_sign_sk;
  expect_refused(signed_list(opt), 0, P2B_ERR_BAD_SIGNATURE, "shuffler's signature");
  opt.sign_sk = nullptr;
  opt.signer_pk = pk;
  expect_refused(signed_list(opt), 0, P2B_ERR_MALFORMED_INPUT, "names another signer");
}

// A model bundle and a key list share the signing key: neither passes for
// the other.
TEST_F(KeyListRefusal, NoOtherSignedMessagePassesForAList) {
  std::vector<uint8_t> list = signed_list(newer());
  EXPECT_EQ(p2b_agent_apply_model(t_.agent, list.data(), list.size()), P2B_ERR_MALFORMED_INPUT);
  list[3] = 'M';  // a "P2BM" of the list's length: the signature covers the magic
  EXPECT_EQ(p2b_agent_apply_model(t_.agent, list.data(), list.size()), P2B_ERR_BAD_SIGNATURE);
  EXPECT_EQ(p2b_test::saved(t_.agent), before_);
}

// ---- across save, restore and forget ----

TEST(KeyList, AntiRollbackAndTheCurrentKeySurviveSaveAndRestore) {
  auto t = reporting_agent();
  const BoxPair k2, k3;
  ListOptions opt;
  opt.version = 9;
  opt.keys = {k2.pk, k3.pk};
  opt.current = 1;
  const std::vector<uint8_t> v9 = signed_list(opt);
  ASSERT_EQ(p2b_agent_apply_key_list(t.agent, v9.data(), v9.size(), 0), P2B_OK);
  EXPECT_EQ(p2b_agent_forget(t.agent), P2B_OK);  // forgetting keeps the keys
  EXPECT_EQ(list_version(t.agent), 9U);
  const std::vector<uint8_t> blob = p2b_test::saved(t.agent);

  auto restored = reporting_agent();
  ASSERT_EQ(p2b_agent_restore(restored.agent, p2b_test::test_state_key(), blob.data(), blob.size()),
            P2B_OK);
  EXPECT_EQ(list_version(restored.agent), 9U);
  EXPECT_EQ(p2b_agent_apply_key_list(restored.agent, v9.data(), v9.size(), 0),
            P2B_ERR_KEY_LIST_ROLLBACK);
  release_report(restored.agent);
  const std::array<uint8_t, P2B_ENVELOPE_BYTES> env = poll(restored.agent);
  EXPECT_TRUE(opens_with(env.data(), k3));
  EXPECT_EQ(std::memcmp(env.data(), fingerprint(k3.pk).data(), P2B_FINGERPRINT_BYTES), 0);
  // The still-accepted key came back too.
  std::array<uint8_t, P2B_ENVELOPE_BYTES> sealed_to_k2{};
  std::memcpy(sealed_to_k2.data(), fingerprint(k2.pk).data(), P2B_FINGERPRINT_BYTES);
  EXPECT_EQ(
      p2b_agent_envelope_key_accepted(restored.agent, sealed_to_k2.data(), P2B_ENVELOPE_BYTES),
      P2B_OK);
  EXPECT_EQ(p2b_test::saved(restored.agent).size(), blob.size()) << "state size is fixed";
}

// The header's key fields, as the state's protobuf framing places them (last
// in StateHeader): 10 bytes of key_list_version, 35 of shuffler_key, 67 of
// accepted_fps.
constexpr size_t kKeyFieldsBytes = 10 + 35 + 67;

// The saved state with its header rebuilt from `header` (same framing).
std::vector<uint8_t> with_header(const std::vector<uint8_t>& blob, std::vector<uint8_t> header) {
  const p2b_test::StateLayout at = p2b_test::state_layout(blob);
  std::vector<uint8_t> out(blob.begin(), blob.begin() + 4);
  for (size_t n = header.size();; n >>= 7) {
    out.push_back(static_cast<uint8_t>((n & 0x7F) | (n >= 0x80 ? 0x80 : 0)));
    if (n < 0x80) break;
  }
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), blob.begin() + static_cast<std::ptrdiff_t>(at.header_at + at.header_len),
             blob.end());
  p2b_test::reseal_state(&out);
  return out;
}

std::vector<uint8_t> header_of(const std::vector<uint8_t>& blob) {
  const p2b_test::StateLayout at = p2b_test::state_layout(blob);
  return {blob.begin() + static_cast<std::ptrdiff_t>(at.header_at),
          blob.begin() + static_cast<std::ptrdiff_t>(at.header_at + at.header_len)};
}

// A state of format 3 (p2b before key lists, already with the keyed MAC)
// still restores, as "no list applied"; a format-3 header carrying key
// fields, or a format-4 one without them, is refused.
TEST(KeyList, StateOfTheFormatBeforeKeyListsStillRestores) {
  auto src = reporting_agent();
  release_report(src.agent);
  const std::vector<uint8_t> blob = p2b_test::saved(src.agent);
  std::vector<uint8_t> header = header_of(blob);
  ASSERT_EQ(header[header.size() - kKeyFieldsBytes], 0x89) << "key_list_version's tag";
  std::vector<uint8_t> v3(header.begin(), header.end() - kKeyFieldsBytes);
  v3[p2b_test::kHeaderFormatAt] = 3;

  auto target = reporting_agent();
  const std::vector<uint8_t> old = with_header(blob, v3);
  ASSERT_EQ(p2b_agent_restore(target.agent, p2b_test::test_state_key(), old.data(), old.size()),
            P2B_OK);
  EXPECT_EQ(list_version(target.agent), 0U);
  EXPECT_EQ(p2b_test::saved(target.agent), blob) << "the same agent, now saved as format 4";

  header[p2b_test::kHeaderFormatAt] = 3;
  std::vector<uint8_t> bad = with_header(blob, header);
  const std::vector<uint8_t> before = p2b_test::saved(target.agent);
  EXPECT_EQ(p2b_agent_restore(target.agent, p2b_test::test_state_key(), bad.data(), bad.size()),
            P2B_ERR_CORRUPT_STATE);
  v3[p2b_test::kHeaderFormatAt] = 4;
  bad = with_header(blob, v3);
  EXPECT_EQ(p2b_agent_restore(target.agent, p2b_test::test_state_key(), bad.data(), bad.size()),
            P2B_ERR_CORRUPT_STATE);
  EXPECT_EQ(p2b_test::saved(target.agent), before);
}

// A state whose keys were edited and re-MACed by the key holder is still
// checked: the current key must match the first accepted fingerprint.
TEST(KeyList, SavedKeysThatDoNotAgreeAreRefused) {
  auto src = reporting_agent();
  const std::vector<uint8_t> blob = p2b_test::saved(src.agent);
  const std::vector<uint8_t> header = header_of(blob);
  const size_t key_at = header.size() - 67 - 32;  // shuffler_key's value
  const size_t fps_at = header.size() - 64;       // accepted_fps' value
  auto target = reporting_agent();
  const std::vector<uint8_t> before = p2b_test::saved(target.agent);
  struct Edit {
    const char* what;
    size_t at;
    uint8_t value;
  };
  const uint8_t first_key_byte = header[key_at];
  const Edit edits[] = {
      {"another current key", key_at, static_cast<uint8_t>(first_key_byte ^ 1)},
      {"another first fingerprint", fps_at, static_cast<uint8_t>(header[fps_at] ^ 1)},
      {"a second key before any list", fps_at + 16, 1}};
  for (const Edit& e : edits) {
    std::vector<uint8_t> h = header;
    h[e.at] = e.value;
    const std::vector<uint8_t> bad = with_header(blob, h);
    EXPECT_EQ(p2b_agent_restore(target.agent, p2b_test::test_state_key(), bad.data(), bad.size()),
              P2B_ERR_CORRUPT_STATE)
        << e.what;
  }
  EXPECT_EQ(p2b_test::saved(target.agent), before);
}

}  // namespace
