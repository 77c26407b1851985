// The C API's bad-input matrix: every error status is reached by some bad
// input, no failing call changes the agent (compared via its saved bytes),
// and every status a function returns here is one its documentation in
// p2b.h lists (documented_statuses.hpp wraps every call).
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>

#include "key_list_support.hpp"
#include "model_support.hpp"
#include "p2b/config.hpp"
#include "test_support.hpp"
// Last: from here on every p2b_* call is checked against its \retval list.
#include "header_example/documented_statuses.hpp"

namespace {

constexpr uint32_t kDim = 4;
constexpr uint32_t kArms = 3;
constexpr uint32_t kCodes = 8;

int failing_random(void*, uint8_t*, size_t) {
  return -1;
}
int failing_seal(uint8_t*, const uint8_t*, size_t, const uint8_t*) {
  return -1;
}

class CApiErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    p2b_config cfg = p2b_test::base_config(kDim, kArms, kCodes, 1);
    cfg.pending_capacity = 2;
    t_ = p2b_test::make_agent(cfg);
    // Some history, and one rewarded plus one open decision.
    uint32_t a = 0;
    for (int i = 0; i < 3; ++i) {
      ASSERT_EQ(p2b_agent_decide(t_.agent, x_, kDim, &a, &rewarded_), P2B_OK);
    }
    expired_ = rewarded_ - 2;
    ASSERT_EQ(p2b_agent_reward(t_.agent, rewarded_, 1.0F), P2B_OK);
    ASSERT_EQ(p2b_agent_decide(t_.agent, x_, kDim, &a, &open_), P2B_OK);
  }

  // Runs `call`, expects `want`, and checks the agent did not change.
  void expect(p2b_status want, const char* what, const std::function<p2b_status()>& call) {
    const std::vector<uint8_t> before = p2b_test::saved(t_.agent);
    const p2b_status got = call();
    EXPECT_EQ(got, want) << what << ": got " << p2b_status_str(got);
    EXPECT_EQ(p2b_test::saved(t_.agent), before) << what << " changed the agent";
    reached_.insert(got);
    ++cases_;
  }

  p2b_config cfg() const { return t_.cfg; }

  // init of `k` into fresh memory of the test agent's size; a failure must
  // not hand out a handle.
  p2b_status init_elsewhere(const p2b_config& k) const {
    auto mem = p2b_test::aligned_arena(t_.bytes);
    p2b_agent* other = nullptr;
    const p2b_status s = p2b_agent_init(mem.get(), t_.bytes, &k, &other);
    if (s != P2B_OK) {
      EXPECT_EQ(other, nullptr);
    }
    return s;
  }

  p2b_test::TestAgent t_;
  float x_[kDim] = {1, 2, 3, 4};
  uint64_t rewarded_ = 0, open_ = 0, expired_ = 0;
  std::set<int> reached_;
  int cases_ = 0;
};

TEST_F(CApiErrors, EveryErrorStatusIsReachedAndLeavesTheAgentUnchanged) {
  p2b_agent* ag = t_.agent;
  uint32_t action = 0, code = 0;
  uint64_t id = 0;
  float mean[kArms], width[kArms], c[kDim];
  p2b_tuple rep;
  size_t n = 0;
  std::vector<uint8_t> buf(1 << 16);

  // NULL pointers.
  expect(P2B_ERR_NULL_POINTER, "decide x",
         [&] { return p2b_agent_decide(ag, nullptr, kDim, &action, &id); });
  expect(P2B_ERR_NULL_POINTER, "decide action",
         [&] { return p2b_agent_decide(ag, x_, kDim, nullptr, &id); });
  expect(P2B_ERR_NULL_POINTER, "decide id",
         [&] { return p2b_agent_decide(ag, x_, kDim, &action, nullptr); });
  expect(P2B_ERR_NULL_POINTER, "decide agent",
         [&] { return p2b_agent_decide(nullptr, x_, kDim, &action, &id); });
  expect(P2B_ERR_NULL_POINTER, "reward agent",
         [&] { return p2b_agent_reward(nullptr, open_, 1.0F); });
  expect(P2B_ERR_NULL_POINTER, "poll tuple", [&] { return p2b_agent_poll_tuple(ag, nullptr); });
  expect(P2B_ERR_NULL_POINTER, "poll envelope",
         [&] { return p2b_agent_poll_envelope(ag, nullptr, 0, &n); });
  expect(P2B_ERR_NULL_POINTER, "fingerprints", [&] { return p2b_agent_fingerprints(ag, nullptr); });
  expect(P2B_ERR_NULL_POINTER, "missing shuffler key", [&] {
    p2b_config k = cfg();
    k.shuffler_public_key = nullptr;
    return init_elsewhere(k);
  });
  expect(P2B_ERR_NULL_POINTER, "missing verify key", [&] {
    p2b_config k = cfg();
    k.analyzer_verify_key = nullptr;
    return init_elsewhere(k);
  });
  expect(P2B_ERR_NULL_POINTER, "scores",
         [&] { return p2b_agent_scores(ag, x_, kDim, nullptr, width, kArms); });
  expect(P2B_ERR_NULL_POINTER, "encode", [&] { return p2b_agent_encode(ag, x_, kDim, nullptr); });
  expect(P2B_ERR_NULL_POINTER, "save",
         [&] { return p2b_agent_save(ag, p2b_test::test_state_key(), nullptr, 10, &n); });
  expect(P2B_ERR_NULL_POINTER, "restore",
         [&] { return p2b_agent_restore(ag, p2b_test::test_state_key(), nullptr, 10); });
  expect(P2B_ERR_NULL_POINTER, "import",
         [&] { return p2b_agent_import(ag, nullptr, nullptr, kArms, kDim, 0); });
  expect(P2B_ERR_NULL_POINTER, "privacy", [&] { return p2b_agent_privacy(ag, nullptr); });
  expect(P2B_ERR_NULL_POINTER, "footprint", [&] { return p2b_agent_footprint(nullptr, &n); });
  expect(P2B_ERR_NULL_POINTER, "config default", [&] { return p2b_config_default(nullptr); });
  expect(P2B_ERR_NULL_POINTER, "codebook", [&] {
    p2b_config k = cfg();
    k.centroids = nullptr;
    return init_elsewhere(k);
  });

  // Configurations out of range.
  // Shape fields first: the footprint query must refuse them as init does.
  const std::vector<std::pair<const char*, std::function<void(p2b_config&)>>> bad_shapes = {
      {"dim 0", [](p2b_config& k) { k.dim = 0; }},
      {"dim above max", [](p2b_config& k) { k.dim = P2B_MAX_DIM + 1; }},
      {"n_actions 0", [](p2b_config& k) { k.n_actions = 0; }},
      {"n_actions above max", [](p2b_config& k) { k.n_actions = P2B_MAX_ACTIONS + 1; }},
      {"window 0", [](p2b_config& k) { k.window = 0; }},
      {"window above max", [](p2b_config& k) { k.window = P2B_MAX_WINDOW + 1; }},
      {"pending 0", [](p2b_config& k) { k.pending_capacity = 0; }},
      {"pending above max", [](p2b_config& k) { k.pending_capacity = P2B_MAX_PENDING + 1; }},
      {"outbox 0", [](p2b_config& k) { k.outbox_capacity = 0; }},
      {"outbox above max", [](p2b_config& k) { k.outbox_capacity = P2B_MAX_OUTBOX + 1; }},
      {"codes 0", [](p2b_config& k) { k.n_codes = 0; }},
      {"codes above max", [](p2b_config& k) { k.n_codes = P2B_MAX_CODES + 1; }},
  };
  for (const auto& entry : bad_shapes) {
    const char* what = entry.first;
    const auto& mutate = entry.second;
    expect(P2B_ERR_BAD_CONFIG, what, [&] {
      p2b_config k = cfg();
      mutate(k);
      const p2b_status fp = p2b_agent_footprint(&k, &n);
      EXPECT_EQ(init_elsewhere(k), fp) << what << ": init and footprint disagree";
      return fp;
    });
  }
  // Other fields: only init reads them; the footprint of the shape stands.
  const std::vector<std::pair<const char*, std::function<void(p2b_config&)>>> bad_configs = {
      {"p = 0", [](p2b_config& k) { k.participation = 0.0; }},
      {"p = 1", [](p2b_config& k) { k.participation = 1.0; }},
      {"p NaN", [](p2b_config& k) { k.participation = NAN; }},
      {"alpha < 0", [](p2b_config& k) { k.alpha = -1.0; }},
      {"alpha NaN", [](p2b_config& k) { k.alpha = NAN; }},
      {"lambda 0", [](p2b_config& k) { k.ridge_lambda = 0.0; }},
      {"lambda below 1e-6", [](p2b_config& k) { k.ridge_lambda = 1e-7; }},
      {"ts_scale < 0", [](p2b_config& k) { k.ts_scale = -0.1; }},
      {"q 0", [](p2b_config& k) { k.round_digits = 0; }},
      {"q above max", [](p2b_config& k) { k.round_digits = P2B_MAX_DIGITS + 1; }},
      {"alpha above 1e6", [](p2b_config& k) { k.alpha = 2e6; }},
      {"ts_scale above 1e6", [](p2b_config& k) { k.ts_scale = 2e6; }},
      {"lambda above 1e6", [](p2b_config& k) { k.ridge_lambda = 2e6; }},
      {"neg_rate > 1", [](p2b_config& k) { k.neg_rate = 1.5; }},
      {"budget 0", [](p2b_config& k) { k.epsilon_budget = 0.0; }},
      {"budget NaN", [](p2b_config& k) { k.epsilon_budget = NAN; }},
      {"policy", [](p2b_config& k) { k.policy = 7; }},
      {"rng mode", [](p2b_config& k) { k.rng_mode = 9; }},
  };
  for (const auto& entry : bad_configs) {
    const char* what = entry.first;
    const auto& mutate = entry.second;
    expect(P2B_ERR_BAD_CONFIG, what, [&] {
      p2b_config k = cfg();
      mutate(k);
      size_t shape_bytes = 0;
      EXPECT_EQ(p2b_agent_footprint(&k, &shape_bytes), P2B_OK) << what;
      EXPECT_EQ(shape_bytes, t_.bytes) << what;
      return init_elsewhere(k);
    });
  }

  // Context and reward values.
  float wrong[kDim + 1] = {1, 2, 3, 4, 5};
  expect(P2B_ERR_DIMENSION_MISMATCH, "short context",
         [&] { return p2b_agent_decide(ag, wrong, kDim - 1, &action, &id); });
  expect(P2B_ERR_DIMENSION_MISMATCH, "long context",
         [&] { return p2b_agent_decide(ag, wrong, kDim + 1, &action, &id); });
  expect(P2B_ERR_DIMENSION_MISMATCH, "centroid len",
         [&] { return p2b_agent_centroid(ag, 0, c, kDim + 1); });
  for (const float v : {NAN, INFINITY, -INFINITY}) {
    float x[kDim] = {1, v, 1, 1};
    expect(P2B_ERR_NON_FINITE, "non-finite context",
           [&] { return p2b_agent_decide(ag, x, kDim, &action, &id); });
    expect(P2B_ERR_NON_FINITE, "non-finite learn",
           [&] { return p2b_agent_learn(ag, x, kDim, 0, 1.0F); });
    expect(P2B_ERR_NON_FINITE, "non-finite reward", [&] { return p2b_agent_reward(ag, open_, v); });
  }
  float negative[kDim] = {1, -0.5F, 1, 1};
  expect(P2B_ERR_NEGATIVE_CONTEXT, "negative context",
         [&] { return p2b_agent_decide(ag, negative, kDim, &action, &id); });
  expect(P2B_ERR_NEGATIVE_CONTEXT, "negative encode",
         [&] { return p2b_agent_encode(ag, negative, kDim, &code); });
  expect(P2B_ERR_REWARD_OUT_OF_RANGE, "reward < 0",
         [&] { return p2b_agent_reward(ag, open_, -0.01F); });
  expect(P2B_ERR_REWARD_OUT_OF_RANGE, "reward > 1",
         [&] { return p2b_agent_reward(ag, open_, 1.01F); });
  expect(P2B_ERR_REWARD_OUT_OF_RANGE, "learn reward",
         [&] { return p2b_agent_learn(ag, x_, kDim, 0, 2.0F); });
  expect(P2B_ERR_ACTION_OUT_OF_RANGE, "learn action",
         [&] { return p2b_agent_learn(ag, x_, kDim, kArms, 1.0F); });
  expect(P2B_ERR_CODE_OUT_OF_RANGE, "centroid code",
         [&] { return p2b_agent_centroid(ag, kCodes, c, kDim); });

  // Buffers.
  expect(P2B_ERR_BUFFER_TOO_SMALL, "scores cap",
         [&] { return p2b_agent_scores(ag, x_, kDim, mean, width, kArms - 1); });
  expect(P2B_ERR_BUFFER_TOO_SMALL, "save cap",
         [&] { return p2b_agent_save(ag, p2b_test::test_state_key(), buf.data(), 8, &n); });

  // Decision ids.
  expect(P2B_ERR_UNKNOWN_DECISION, "unknown id",
         [&] { return p2b_agent_reward(ag, open_ + 100, 1.0F); });
  expect(P2B_ERR_EXPIRED_DECISION, "expired id",
         [&] { return p2b_agent_reward(ag, expired_, 1.0F); });
  expect(P2B_ERR_ALREADY_REWARDED, "rewarded twice",
         [&] { return p2b_agent_reward(ag, rewarded_, 1.0F); });

  // Memory handed to init, and memory never initialised.
  expect(P2B_ERR_ARENA_TOO_SMALL, "arena too small", [&] {
    auto mem = p2b_test::aligned_arena(t_.bytes);
    p2b_agent* other = nullptr;
    p2b_config k = cfg();
    return p2b_agent_init(mem.get(), t_.bytes - 1, &k, &other);
  });
  expect(P2B_ERR_ARENA_MISALIGNED, "arena misaligned", [&] {
    auto mem = p2b_test::aligned_arena(t_.bytes + 64);
    p2b_agent* other = nullptr;
    p2b_config k = cfg();
    return p2b_agent_init(static_cast<char*>(mem.get()) + 8, t_.bytes, &k, &other);
  });
  expect(P2B_ERR_NOT_INITIALIZED, "zeroed memory", [&] {
    auto mem = p2b_test::aligned_arena(t_.bytes);
    std::memset(mem.get(), 0, t_.bytes);
    return p2b_agent_decide(static_cast<p2b_agent*>(mem.get()), x_, kDim, &action, &id);
  });
  expect(P2B_ERR_NOT_INITIALIZED, "failed init leaves memory uninitialised", [&] {
    auto mem = p2b_test::aligned_arena(t_.bytes);
    std::memset(mem.get(), 0xA5, t_.bytes);
    p2b_agent* other = nullptr;
    p2b_config k = cfg();
    EXPECT_EQ(p2b_agent_init(mem.get(), t_.bytes - 1, &k, &other), P2B_ERR_ARENA_TOO_SMALL);
    return p2b_agent_poll_tuple(static_cast<p2b_agent*>(mem.get()), &rep);
  });
  expect(P2B_ERR_BAD_CODEBOOK, "NaN centroid", [&] {
    std::vector<float> book = t_.codebook;
    book[5] = NAN;
    p2b_config k = cfg();
    k.centroids = book.data();
    auto mem = p2b_test::aligned_arena(t_.bytes);
    p2b_agent* other = nullptr;
    return p2b_agent_init(mem.get(), t_.bytes, &k, &other);
  });

  // Saved state.
  const std::vector<uint8_t> good = p2b_test::saved(ag);
  expect(P2B_ERR_CORRUPT_STATE, "garbage state", [&] {
    std::vector<uint8_t> bad(good.size(), 0x42);
    return p2b_agent_restore(ag, p2b_test::test_state_key(), bad.data(), bad.size());
  });
  expect(P2B_ERR_CORRUPT_STATE, "state under another key", [&] {
    const uint8_t other[P2B_STATE_KEY_BYTES] = {9};
    return p2b_agent_restore(ag, other, good.data(), good.size());
  });
  expect(P2B_ERR_NULL_POINTER, "state key", [&] {
    size_t written = 0;
    std::vector<uint8_t> out(good.size());
    return p2b_agent_save(ag, nullptr, out.data(), out.size(), &written);
  });
  expect(P2B_ERR_NULL_POINTER, "restore key",
         [&] { return p2b_agent_restore(ag, nullptr, good.data(), good.size()); });
  expect(P2B_ERR_UNSUPPORTED_VERSION, "future state version", [&] {
    std::vector<uint8_t> bad = good;
    bad[p2b_test::state_layout(bad).header_at + p2b_test::kHeaderFormatAt + 1] = 1;  // 258
    p2b_test::reseal_state(&bad);
    return p2b_agent_restore(ag, p2b_test::test_state_key(), bad.data(), bad.size());
  });
  expect(P2B_ERR_STATE_MISMATCH, "state of another config", [&] {
    p2b_config k = cfg();
    k.window = 3;
    auto other = p2b_test::make_agent(k);
    const std::vector<uint8_t> foreign = p2b_test::saved(other.agent);
    return p2b_agent_restore(ag, p2b_test::test_state_key(), foreign.data(), foreign.size());
  });
  expect(P2B_ERR_NOT_POSITIVE_DEFINITE, "zero matrices", [&] {
    std::vector<double> a(kArms * kDim * kDim, 0.0), b(kArms * kDim, 0.0);
    return p2b_agent_import(ag, a.data(), b.data(), kArms, kDim, P2B_STATS_GRAM);
  });

  // Warm-start models.
  auto model = [&](p2b_test::BundleOptions opt) {
    return p2b_test::bundle_from(ag, kDim, kArms, opt);
  };
  expect(P2B_ERR_MALFORMED_INPUT, "garbage model", [&] {
    std::vector<uint8_t> junk(300, 0x33);
    return p2b_agent_apply_model(ag, junk.data(), junk.size());
  });
  expect(P2B_ERR_BAD_SIGNATURE, "model signed by a stranger", [&] {
    uint8_t pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
    crypto_sign_keypair(pk, sk);
    p2b_test::BundleOptions opt{5};
    opt.sign_sk = sk;
    const auto m = model(opt);
    return p2b_agent_apply_model(ag, m.data(), m.size());
  });
  expect(P2B_ERR_MODEL_SHAPE_MISMATCH, "model for another d", [&] {
    p2b_test::BundleOptions opt{5};
    opt.dim_delta = 1;
    const auto m = model(opt);
    return p2b_agent_apply_model(ag, m.data(), m.size());
  });
  expect(P2B_ERR_CODEBOOK_MISMATCH, "model for another codebook", [&] {
    p2b_test::BundleOptions opt{5};
    opt.other_codebook = true;
    const auto m = model(opt);
    return p2b_agent_apply_model(ag, m.data(), m.size());
  });
  expect(P2B_ERR_MODEL_ROLLBACK, "model version 0", [&] {
    const auto m = model(p2b_test::BundleOptions{0});
    return p2b_agent_apply_model(ag, m.data(), m.size());
  });
  expect(P2B_ERR_NULL_POINTER, "model bytes",
         [&] { return p2b_agent_apply_model(ag, nullptr, 5); });
  expect(P2B_ERR_MODEL_KIND, "raw-baseline model", [&] {
    p2b_test::BundleOptions opt{5};
    opt.kind = 1;
    const auto m = model(opt);
    return p2b_agent_apply_model(ag, m.data(), m.size());
  });
  expect(P2B_ERR_MODEL_EXPIRED, "expired model", [&] {
    p2b_test::BundleOptions opt{5};
    opt.not_after_unix = 1795000100;
    const auto m = model(opt);
    return p2b_agent_apply_model_at(ag, m.data(), m.size(), 1795000101);
  });
  expect(P2B_ERR_MODEL_KIND, "version of an unknown kind", [&] {
    uint64_t v = 0;
    return p2b_agent_model_version_of(ag, 2, &v);
  });
  expect(P2B_ERR_NULL_POINTER, "model version out",
         [&] { return p2b_agent_model_version_of(ag, P2B_MODEL_PRIVATE, nullptr); });

  // Shuffler-key lists.
  p2b_test::ListOptions list_opt;
  list_opt.version = 2;
  list_opt.keys = {p2b_test::test_keys().analyzer_pk};
  const std::vector<uint8_t> list = p2b_test::signed_list(list_opt);
  expect(P2B_ERR_MALFORMED_INPUT, "truncated key list",
         [&] { return p2b_agent_apply_key_list(ag, list.data(), list.size() - 1, 0); });
  expect(P2B_ERR_BAD_SIGNATURE, "key list with a flipped bit", [&] {
    std::vector<uint8_t> bad = list;
    bad[60] ^= 1;
    return p2b_agent_apply_key_list(ag, bad.data(), bad.size(), 0);
  });
  expect(P2B_ERR_KEY_LIST_EXPIRED, "expired key list", [&] {
    p2b_test::ListOptions opt = list_opt;
    opt.not_after_unix = 1795000100;
    const std::vector<uint8_t> l = p2b_test::signed_list(opt);
    return p2b_agent_apply_key_list(ag, l.data(), l.size(), 1795000101);
  });
  expect(P2B_ERR_KEY_LIST_ROLLBACK, "key list version rolled back", [&] {
    auto other = p2b_test::make_agent(cfg());
    EXPECT_EQ(p2b_agent_apply_key_list(other.agent, list.data(), list.size(), 0), P2B_OK);
    const std::vector<uint8_t> before = p2b_test::saved(other.agent);
    const p2b_status s = p2b_agent_apply_key_list(other.agent, list.data(), list.size(), 0);
    EXPECT_EQ(p2b_test::saved(other.agent), before);
    return s;
  });
  expect(P2B_ERR_NULL_POINTER, "key list version out",
         [&] { return p2b_agent_key_list_version(ag, nullptr); });
  expect(P2B_ERR_KEY_RETIRED, "envelope sealed to no key of the deployment", [&] {
    const std::vector<uint8_t> env(P2B_ENVELOPE_BYTES, 0x42);
    return p2b_agent_envelope_key_accepted(ag, env.data(), env.size());
  });
  expect(P2B_ERR_MALFORMED_INPUT, "short envelope",
         [&] { return p2b_agent_envelope_key_accepted(ag, buf.data(), P2B_ENVELOPE_BYTES - 1); });

  expect(P2B_ERR_NUMERIC_RANGE, "update leaving the savable range", [&] {
    // An agent whose arm 0 is a valid but extreme factor (see test_warm_start).
    auto other = p2b_test::make_agent(cfg());
    std::vector<double> l(kArms * kDim * kDim, 0.0), b(kArms * kDim, 0.0);
    for (uint32_t i = 0; i < kArms * kDim; ++i)
      l[(i / kDim) * kDim * kDim + (i % kDim) * (kDim + 1)] = 1.0;
    for (uint32_t i = 0; i < kDim; ++i) l[i * (kDim + 1)] = 2e-4;
    for (uint32_t j = 0; j + 1 < kDim; ++j) l[j * kDim + (kDim - 1)] = 9e14;
    EXPECT_EQ(p2b_agent_import(other.agent, l.data(), b.data(), kArms, kDim, P2B_STATS_CHOLESKY),
              P2B_OK);
    const std::vector<uint8_t> before = p2b_test::saved(other.agent);
    const float ones[kDim] = {1, 1, 1, 1};
    const p2b_status s = p2b_agent_learn(other.agent, ones, kDim, 0, 1.0F);
    EXPECT_EQ(p2b_test::saved(other.agent), before);
    return s;
  });

  // Sealing: a full report queue, then a buffer too small and a failing port.
  p2b_crypto broken_seal{failing_seal,
                         p2b_test::sodium_hash,
                         p2b_test::sodium_verify,
                         p2b_test::sodium_aead_encrypt,
                         p2b_test::sodium_aead_decrypt,
                         p2b_test::sodium_random};
  auto agent_with_report = [&](const p2b_crypto* crypto) {
    p2b_config k = cfg();
    k.window = 1;
    k.participation = 0.999;
    k.crypto = crypto;
    auto other = p2b_test::make_agent(k);
    uint64_t oid = 0;
    EXPECT_EQ(p2b_agent_decide(other.agent, x_, kDim, &action, &oid), P2B_OK);
    EXPECT_EQ(p2b_agent_reward(other.agent, oid, 1.0F), P2B_OK);
    return other;
  };
  expect(P2B_ERR_BUFFER_TOO_SMALL, "envelope buffer", [&] {
    auto other = agent_with_report(nullptr);
    const std::vector<uint8_t> before = p2b_test::saved(other.agent);
    const p2b_status s =
        p2b_agent_poll_envelope(other.agent, buf.data(), P2B_ENVELOPE_BYTES - 1, &n);
    EXPECT_EQ(p2b_test::saved(other.agent), before);
    return s;
  });
  expect(P2B_ERR_CRYPTO_FAILURE, "sealing fails", [&] {
    auto other = agent_with_report(&broken_seal);
    const std::vector<uint8_t> before = p2b_test::saved(other.agent);
    const p2b_status s = p2b_agent_poll_envelope(other.agent, buf.data(), buf.size(), &n);
    EXPECT_EQ(p2b_test::saved(other.agent), before) << "the report must stay queued";
    return s;
  });
  expect(P2B_ERR_BAD_CONFIG, "crypto without verify", [&] {
    p2b_crypto partial{
        p2b_test::sodium_seal, p2b_test::sodium_hash, nullptr, nullptr, nullptr, nullptr};
    p2b_config k = cfg();
    k.crypto = &partial;
    return init_elsewhere(k);
  });

  // A random source that fails: the reward that closes a window needs it.
  expect(P2B_ERR_RANDOM_FAILURE, "failing random source", [&] {
    p2b_config k = cfg();
    k.rng_mode = P2B_RNG_SYSTEM;
    k.random = failing_random;
    k.window = 1;
    auto other = p2b_test::make_agent(k);
    uint64_t oid = 0;
    EXPECT_EQ(p2b_agent_decide(other.agent, x_, kDim, &action, &oid), P2B_OK);
    const std::vector<uint8_t> before = p2b_test::saved(other.agent);
    const p2b_status s = p2b_agent_reward(other.agent, oid, 1.0F);
    EXPECT_EQ(p2b_test::saved(other.agent), before);
    return s;
  });

  // The shared-parameter model's own status.
  expect(P2B_ERR_ITEM_COUNT, "shared model decision over no items", [&] {
    p2b_shared_config sc;
    EXPECT_EQ(p2b_shared_config_default(&sc), P2B_OK);
    sc.dim = 2;
    sc.max_items = 2;
    sc.rng_mode = P2B_RNG_SEEDED;
    size_t need = 0;
    EXPECT_EQ(p2b_shared_model_footprint(&sc, &need), P2B_OK);
    std::vector<unsigned char> mem(need + P2B_ARENA_ALIGN);
    const auto addr = reinterpret_cast<uintptr_t>(mem.data());
    void* aligned = mem.data() + (P2B_ARENA_ALIGN - addr % P2B_ARENA_ALIGN) % P2B_ARENA_ALIGN;
    p2b_shared_model* m = nullptr;
    EXPECT_EQ(p2b_shared_model_init(aligned, need, &sc, &m), P2B_OK);
    const double items[2] = {1.0, -1.0};
    uint64_t oid = 0;
    return p2b_shared_model_decide(m, items, 0, 2, &action, &oid);
  });

  // The P-FCB agent's own status: a share applied twice from one sender.
  expect(P2B_ERR_REPLAYED, "P-FCB share replayed", [&] {
    p2b_cmab_config cc;
    EXPECT_EQ(p2b_cmab_config_default(&cc), P2B_OK);
    const double cost[2] = {0.2, 0.3};
    const uint32_t capacity[2] = {4, 4};
    cc.producers = 2;
    cc.cost = cost;
    cc.capacity = capacity;
    cc.rng_mode = P2B_RNG_SEEDED;
    cc.window_start = 1;
    size_t need = 0;
    EXPECT_EQ(p2b_cmab_footprint(&cc, &need), P2B_OK);
    std::vector<unsigned char> mem(2 * (need + P2B_ARENA_ALIGN));
    const auto addr = reinterpret_cast<uintptr_t>(mem.data());
    unsigned char* aligned =
        mem.data() + (P2B_ARENA_ALIGN - addr % P2B_ARENA_ALIGN) % P2B_ARENA_ALIGN;
    const size_t stride = (need + P2B_ARENA_ALIGN - 1) / P2B_ARENA_ALIGN * P2B_ARENA_ALIGN;
    p2b_cmab* sender = nullptr;
    p2b_cmab* receiver = nullptr;
    EXPECT_EQ(p2b_cmab_init(aligned, need, &cc, &sender), P2B_OK);
    EXPECT_EQ(p2b_cmab_init(aligned + stride, need, &cc, &receiver), P2B_OK);
    uint32_t units[2] = {0, 0};
    EXPECT_EQ(p2b_cmab_decide(sender, units, 2), P2B_OK);
    EXPECT_EQ(p2b_cmab_observe(sender, units, 2), P2B_OK);
    std::vector<uint8_t> share(p2b_cmab_share_size(2));
    size_t share_bytes = 0;
    EXPECT_EQ(p2b_cmab_poll_share(sender, share.data(), share.size(), &share_bytes), P2B_OK);
    EXPECT_EQ(p2b_cmab_apply_share(receiver, 0, share.data(), share_bytes, nullptr, nullptr),
              P2B_OK);
    return p2b_cmab_apply_share(receiver, 0, share.data(), share_bytes, nullptr, nullptr);
  });

  std::set<int> all_errors;
  for (int s = -1; s >= P2B_ERR_REPLAYED; --s) all_errors.insert(s);
  std::set<int> missing;
  for (int s : all_errors) {
    if (reached_.count(s) == 0) missing.insert(s);
  }
  EXPECT_TRUE(missing.empty()) << "error statuses no test reached: "
                               << ::testing::PrintToString(missing);
  std::printf("[ figure ] %d bad-input cases, %zu distinct error statuses reached\n", cases_,
              reached_.size());
}

TEST(CApiStatus, EveryStatusHasItsOwnDescription) {
  std::set<std::string> seen;
  for (int s = P2B_ERR_REPLAYED; s <= P2B_BUDGET_EXHAUSTED; ++s) {
    const char* text = p2b_status_str(static_cast<p2b_status>(s));
    ASSERT_NE(text, nullptr);
    EXPECT_TRUE(seen.insert(text).second) << "duplicate description for " << s;
    EXPECT_EQ(p2b_is_error(static_cast<p2b_status>(s)), s < 0 ? 1 : 0);
  }
  EXPECT_STREQ(p2b_status_str(static_cast<p2b_status>(-999)), "unknown status");
  EXPECT_EQ(seen.count("unknown status"), 0U) << "a status without its own description";
}

TEST(CApiVersion, RuntimeVersionMatchesHeaderAndTheBuild) {
  EXPECT_EQ(p2b_version(), static_cast<unsigned>(P2B_VERSION_NUMBER));
  EXPECT_STREQ(p2b_version_string(), P2B_VERSION_STRING);
  const std::string from_numbers = std::to_string(P2B_VERSION_MAJOR) + "." +
                                   std::to_string(P2B_VERSION_MINOR) + "." +
                                   std::to_string(P2B_VERSION_PATCH);
  EXPECT_EQ(from_numbers, P2B_VERSION_STRING);
  // CMake reads the numbers from p2b.h; the project version must be them.
  EXPECT_STREQ(P2B_PROJECT_VERSION, P2B_VERSION_STRING);
}

TEST(CApiSizes, EverySizeMacroHasAFunctionTwin) {
  EXPECT_EQ(p2b_arena_align(), static_cast<size_t>(P2B_ARENA_ALIGN));
  EXPECT_EQ(p2b_max_dim(), static_cast<uint32_t>(P2B_MAX_DIM));
  EXPECT_EQ(p2b_max_actions(), static_cast<uint32_t>(P2B_MAX_ACTIONS));
  EXPECT_EQ(p2b_max_codes(), static_cast<uint32_t>(P2B_MAX_CODES));
  EXPECT_EQ(p2b_max_digits(), static_cast<uint32_t>(P2B_MAX_DIGITS));
  EXPECT_EQ(p2b_max_window(), static_cast<uint32_t>(P2B_MAX_WINDOW));
  EXPECT_EQ(p2b_max_pending(), static_cast<uint32_t>(P2B_MAX_PENDING));
  EXPECT_EQ(p2b_max_outbox(), static_cast<uint32_t>(P2B_MAX_OUTBOX));
  EXPECT_EQ(p2b_key_bytes(), static_cast<size_t>(P2B_KEY_BYTES));
  EXPECT_EQ(p2b_fingerprint_bytes(), static_cast<size_t>(P2B_FINGERPRINT_BYTES));
  EXPECT_EQ(p2b_envelope_bytes(), static_cast<size_t>(P2B_ENVELOPE_BYTES));
  EXPECT_EQ(p2b_state_key_bytes(), static_cast<size_t>(P2B_STATE_KEY_BYTES));
  EXPECT_EQ(p2b_key_list_bytes(), static_cast<size_t>(P2B_KEY_LIST_BYTES));
  EXPECT_EQ(p2b_state_encryption_overhead(), static_cast<size_t>(P2B_STATE_ENCRYPTION_OVERHEAD));
  auto t = p2b_test::make_agent(p2b_test::base_config(4, 3, 8, 1));
  size_t plain = 0, sealed = 0;
  ASSERT_EQ(p2b_agent_save_size(t.agent, &plain), P2B_OK);
  ASSERT_EQ(p2b_agent_save_encrypted_size(t.agent, &sealed), P2B_OK);
  EXPECT_EQ(sealed, plain + P2B_STATE_ENCRYPTION_OVERHEAD);
  std::vector<uint8_t> box(sealed);
  const uint8_t key[P2B_STATE_KEY_BYTES] = {7};
  size_t written = 0;
  ASSERT_EQ(p2b_agent_save_encrypted(t.agent, key, box.data(), box.size(), &written), P2B_OK);
  EXPECT_EQ(written, sealed);
}

TEST(CApiFootprint, DependsOnTheShapeAlone) {
  p2b_config full = p2b_test::base_config(10, 7, 256, 1);
  std::vector<float> book = p2b_test::random_codebook(256, 10, 1);
  full.centroids = book.data();
  size_t with_everything = 0;
  ASSERT_EQ(p2b_agent_footprint(&full, &with_everything), P2B_OK);
  // No keys, no codebook, no crypto, no random source, nonsense elsewhere.
  p2b_config shape{};
  shape.dim = full.dim;
  shape.n_actions = full.n_actions;
  shape.n_codes = full.n_codes;
  shape.window = full.window;
  shape.pending_capacity = full.pending_capacity;
  shape.outbox_capacity = full.outbox_capacity;
  shape.participation = 7.0;
  shape.policy = 99;
  size_t from_shape = 0;
  ASSERT_EQ(p2b_agent_footprint(&shape, &from_shape), P2B_OK);
  EXPECT_EQ(from_shape, with_everything);
}

TEST(CApiFingerprints, NeedNoCryptoPortAndMatchBlake2b128) {
  const p2b_test::TestKeys& keys = p2b_test::test_keys();
  uint8_t ours[P2B_FINGERPRINT_BYTES];
  ASSERT_EQ(p2b_key_fingerprint(keys.shuffler_pk, ours), P2B_OK);
  uint8_t theirs[P2B_FINGERPRINT_BYTES];
  ASSERT_EQ(crypto_generichash(theirs, sizeof theirs, keys.shuffler_pk, P2B_KEY_BYTES, nullptr, 0),
            0);
  EXPECT_EQ(std::vector<uint8_t>(ours, ours + 16), std::vector<uint8_t>(theirs, theirs + 16));
  // And the agent, which fingerprints through its crypto port, agrees.
  auto t = p2b_test::make_agent(p2b_test::base_config(4, 3, 8, 1));
  p2b_fingerprints fp;
  ASSERT_EQ(p2b_agent_fingerprints(t.agent, &fp), P2B_OK);
  EXPECT_EQ(std::vector<uint8_t>(fp.shuffler, fp.shuffler + 16),
            std::vector<uint8_t>(ours, ours + 16));
}

// The old names keep working until 1.0 (and warn; silenced here on purpose).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST(CApiDeprecated, PollReportAndTheReportTypeStillWork) {
  p2b_config k = p2b_test::base_config(4, 3, 8, 1);
  k.window = 1;
  k.participation = 0.999;
  auto t = p2b_test::make_agent(k);
  const float x[4] = {1, 2, 3, 4};
  uint32_t action = 0;
  uint64_t id = 0;
  ASSERT_EQ(p2b_agent_decide(t.agent, x, 4, &action, &id), P2B_OK);
  ASSERT_EQ(p2b_agent_reward(t.agent, id, 1.0F), P2B_OK);
  uint8_t env[P2B_ENVELOPE_BYTES];
  size_t n = 0;
  EXPECT_EQ(p2b_agent_poll_report(t.agent, env, sizeof env, &n), P2B_OK);
  EXPECT_EQ(n, static_cast<size_t>(P2B_ENVELOPE_BYTES));
  p2b_report tuple;
  EXPECT_EQ(p2b_agent_poll_tuple(t.agent, &tuple), P2B_NO_REPORT);
  static_assert(sizeof(p2b_report) == sizeof(p2b_tuple), "alias of the same type");
}
#pragma GCC diagnostic pop

TEST(CApiFootprint, IsExactAndGrowsWithEveryDimension) {
  p2b_config cfg = p2b_test::base_config(10, 10, 1024, 1);
  std::vector<float> book = p2b_test::random_codebook(1024, 10, 1);
  cfg.centroids = book.data();
  size_t base = 0, more = 0;
  ASSERT_EQ(p2b_agent_footprint(&cfg, &base), P2B_OK);
  EXPECT_EQ(base % P2B_ARENA_ALIGN, 0U);
  auto mem = p2b_test::aligned_arena(base);
  p2b_agent* agent = nullptr;
  EXPECT_EQ(p2b_agent_init(mem.get(), base, &cfg, &agent), P2B_OK);
  EXPECT_EQ(p2b_agent_init(mem.get(), base - 1, &cfg, &agent), P2B_ERR_ARENA_TOO_SMALL);
  for (uint32_t p2b_config::*field :
       {&p2b_config::dim, &p2b_config::n_actions, &p2b_config::window,
        &p2b_config::pending_capacity, &p2b_config::outbox_capacity}) {
    p2b_config bigger = cfg;
    bigger.*field += 1;
    std::vector<float> big_book = p2b_test::random_codebook(1024, bigger.dim, 1);
    bigger.centroids = big_book.data();
    ASSERT_EQ(p2b_agent_footprint(&bigger, &more), P2B_OK);
    EXPECT_GT(more, base);
  }
  std::printf("[ figure ] arena for d=10 K=10 k=1024 (%s): %zu bytes\n",
              sizeof(p2b::real) == 4 ? "float" : "double", base);
}

}  // namespace
