// FCLUB's device warm start: a shared model applies a cluster's signed
// statistics (server/wire build_shared_model_bundle) and then scores as a
// model that learned the same rounds itself; every bad bundle is refused
// with its status and leaves the saved state byte for byte as it was; the
// applied version survives save and restore.
#include <gtest/gtest.h>
#include <sodium.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "p2b.h"
#include "p2b/codebook_format.hpp"
#include "state_mac.hpp"
#include "test_support.hpp"
#include "wire/model_bundle.hpp"

namespace {

using p2b_test::test_keys;

const uint8_t kKey[P2B_STATE_KEY_BYTES] = {9, 4, 1};

struct Model {
  std::vector<unsigned char> arena;
  p2b_shared_model* m = nullptr;
};

p2b_shared_config config(uint32_t d, uint32_t precision, const uint8_t* verify_key) {
  p2b_shared_config c;
  EXPECT_EQ(p2b_shared_config_default(&c), P2B_OK);
  c.dim = d;
  c.max_items = 6;
  c.precision = precision;
  c.alpha = 0.7;
  c.ridge_lambda = 0.5;
  c.rng_mode = P2B_RNG_SEEDED;
  c.seed = 5;
  c.analyzer_verify_key = verify_key;
  return c;
}

Model make(const p2b_shared_config& c) {
  Model out;
  size_t need = 0;
  EXPECT_EQ(p2b_shared_model_footprint(&c, &need), P2B_OK);
  out.arena.assign(need + P2B_ARENA_ALIGN, 0);
  auto addr = reinterpret_cast<uintptr_t>(out.arena.data());
  void* mem = out.arena.data() + (P2B_ARENA_ALIGN - addr % P2B_ARENA_ALIGN) % P2B_ARENA_ALIGN;
  EXPECT_EQ(p2b_shared_model_init(mem, need, &c, &out.m), P2B_OK);
  return out;
}

std::vector<uint8_t> saved(const p2b_shared_model* m) {
  size_t n = 0;
  EXPECT_EQ(p2b_shared_model_save_size(m, &n), P2B_OK);
  std::vector<uint8_t> buf(n);
  size_t written = 0;
  EXPECT_EQ(p2b_shared_model_save(m, kKey, buf.data(), buf.size(), &written), P2B_OK);
  return buf;
}

uint64_t version_of(const p2b_shared_model* m) {
  uint64_t v = 99;
  EXPECT_EQ(p2b_shared_model_model_version(m, &v), P2B_OK);
  return v;
}

// One cluster's rounds as FCLUB's server sums them: S = sum x x^T, u = sum y x.
struct Cluster {
  uint32_t d;
  std::vector<double> x;  // n x d
  std::vector<double> y;
  std::vector<double> gram;
  std::vector<double> moment;
};

Cluster cluster(uint32_t d, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0.0, 1.0);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Cluster c{d, std::vector<double>(n * d), std::vector<double>(n),
            std::vector<double>(static_cast<size_t>(d) * d, 0.0), std::vector<double>(d, 0.0)};
  for (size_t r = 0; r < n; ++r) {
    double n2 = 0.0;
    for (uint32_t i = 0; i < d; ++i) n2 += (c.x[r * d + i] = g(rng)) * c.x[r * d + i];
    for (uint32_t i = 0; i < d; ++i) c.x[r * d + i] /= std::sqrt(n2);
    c.y[r] = u(rng) < 0.5 ? 1.0 : 0.0;
    for (uint32_t j = 0; j < d; ++j) {
      for (uint32_t i = 0; i < d; ++i) c.gram[j * d + i] += c.x[r * d + i] * c.x[r * d + j];
      c.moment[j] += c.y[r] * c.x[r * d + j];
    }
  }
  return c;
}

struct BundleOptions {
  uint64_t version = 1;
  uint64_t not_after_unix = 0;
  const uint8_t* sign_sk = nullptr;  // default: the test deployment's key
  double lambda = 0.5;
};

BundleOptions v(uint64_t version, uint64_t not_after_unix = 0, const uint8_t* sign_sk = nullptr,
                double lambda = 0.5) {
  return BundleOptions{version, not_after_unix, sign_sk, lambda};
}

std::vector<uint8_t> bundle(const Cluster& c, const BundleOptions& o = {}) {
  p2b::server::ModelSpec spec;
  spec.dim = c.d;
  spec.ridge_lambda = o.lambda;
  spec.version = o.version;
  spec.created_unix = 1795000000;
  spec.not_after_unix = o.not_after_unix;
  std::vector<uint8_t> out;
  std::string err;
  const uint8_t* sk = o.sign_sk != nullptr ? o.sign_sk : test_keys().sign_sk;
  EXPECT_TRUE(
      p2b::server::build_shared_model_bundle(spec, c.gram.data(), c.moment.data(), sk, &out, &err))
      << err;
  return out;
}

// The signed part of `b` with `edit` applied, signed again with the test key:
// a bundle whose signature holds but whose content is wrong.
template <typename Edit>
std::vector<uint8_t> resigned(std::vector<uint8_t> b, Edit edit) {
  std::vector<uint8_t> body(b.begin(), b.end() - crypto_sign_BYTES);
  edit(&body);
  std::vector<uint8_t> out = body;
  out.resize(body.size() + crypto_sign_BYTES);
  crypto_sign_detached(out.data() + body.size(), nullptr, body.data(), body.size(),
                       test_keys().sign_sk);
  return out;
}

std::vector<double> items_for(uint32_t d, uint64_t seed) {
  return cluster(d, 6, seed).x;
}

class WarmStart : public ::testing::TestWithParam<uint32_t> {};

// Applying S and u scores as a model that learned the same rounds itself.
TEST_P(WarmStart, ScoresEqualAModelFedTheSameStatistics) {
  const uint32_t precision = GetParam();
  const double tol = precision == P2B_PRECISION_F64 ? 1e-9 : 1e-4;
  constexpr uint32_t d = 7;
  const Cluster c = cluster(d, 300, 21);
  Model fed = make(config(d, precision, test_keys().verify_pk));
  for (size_t r = 0; r < c.y.size(); ++r) {
    ASSERT_EQ(p2b_shared_model_learn(fed.m, &c.x[r * d], d, c.y[r]), P2B_OK);
  }
  Model warm = make(config(d, precision, test_keys().verify_pk));
  const std::vector<uint8_t> b = bundle(c);
  ASSERT_EQ(p2b_shared_model_apply_model(warm.m, b.data(), b.size()), P2B_OK);
  EXPECT_EQ(version_of(warm.m), 1U);
  const std::vector<double> items = items_for(d, 8);
  std::vector<double> mf(6), wf(6), tf(6), mw(6), ww(6), tw(6);
  ASSERT_EQ(p2b_shared_model_scores(fed.m, items.data(), 6, d, mf.data(), wf.data(), tf.data()),
            P2B_OK);
  ASSERT_EQ(p2b_shared_model_scores(warm.m, items.data(), 6, d, mw.data(), ww.data(), tw.data()),
            P2B_OK);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_NEAR(mw[i], mf[i], tol) << i;
    EXPECT_NEAR(ww[i], wf[i], tol) << i;
    EXPECT_NEAR(tw[i], tf[i], tol) << i;
  }
  std::vector<double> th_f(d), th_w(d);
  ASSERT_EQ(p2b_shared_model_theta(fed.m, th_f.data(), d), P2B_OK);
  ASSERT_EQ(p2b_shared_model_theta(warm.m, th_w.data(), d), P2B_OK);
  for (uint32_t i = 0; i < d; ++i) EXPECT_NEAR(th_w[i], th_f[i], tol) << i;
}

// The bundle replaces what the model had learned (as an agent's warm start
// does); a decision pending across the apply learns on top of the bundle.
TEST_P(WarmStart, ApplyReplacesTheStatisticsAndLaterRewardsAddToThem) {
  const uint32_t precision = GetParam();
  const double tol = precision == P2B_PRECISION_F64 ? 1e-9 : 1e-4;
  constexpr uint32_t d = 4;
  const Cluster c = cluster(d, 50, 3);
  const Cluster local = cluster(d, 20, 4);
  const std::vector<double> items = items_for(d, 9);
  Model dev = make(config(d, precision, test_keys().verify_pk));
  for (size_t r = 0; r < local.y.size(); ++r) {
    ASSERT_EQ(p2b_shared_model_learn(dev.m, &local.x[r * d], d, local.y[r]), P2B_OK);
  }
  uint32_t item = 0;
  uint64_t id = 0;
  ASSERT_EQ(p2b_shared_model_decide(dev.m, items.data(), 6, d, &item, &id), P2B_OK);
  const std::vector<uint8_t> b = bundle(c);
  ASSERT_EQ(p2b_shared_model_apply_model(dev.m, b.data(), b.size()), P2B_OK);
  ASSERT_EQ(p2b_shared_model_reward(dev.m, id, 1.0), P2B_OK);

  Model ref = make(config(d, precision, test_keys().verify_pk));
  for (size_t r = 0; r < c.y.size(); ++r) {
    ASSERT_EQ(p2b_shared_model_learn(ref.m, &c.x[r * d], d, c.y[r]), P2B_OK);
  }
  ASSERT_EQ(p2b_shared_model_learn(ref.m, &items[item * d], d, 1.0), P2B_OK);
  std::vector<double> t_dev(6), t_ref(6);
  ASSERT_EQ(p2b_shared_model_scores(dev.m, items.data(), 6, d, nullptr, nullptr, t_dev.data()),
            P2B_OK);
  ASSERT_EQ(p2b_shared_model_scores(ref.m, items.data(), 6, d, nullptr, nullptr, t_ref.data()),
            P2B_OK);
  for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(t_dev[i], t_ref[i], tol) << i;
}

INSTANTIATE_TEST_SUITE_P(Precisions, WarmStart,
                         ::testing::Values(uint32_t{P2B_PRECISION_F64},
                                           uint32_t{P2B_PRECISION_F32}));

// Every refusal has its status and changes nothing a save would show.
TEST(SharedWarmStartRefusal, EachBadBundleGetsItsStatusAndLeavesTheStateAlone) {
  constexpr uint32_t d = 5;
  const Cluster c = cluster(d, 40, 12);
  Model m = make(config(d, P2B_PRECISION_F64, test_keys().verify_pk));
  const std::vector<uint8_t> v2 = bundle(c, v(2));
  ASSERT_EQ(p2b_shared_model_apply_model(m.m, v2.data(), v2.size()), P2B_OK);
  const std::vector<double> items = items_for(d, 2);
  uint32_t item = 0;
  uint64_t id = 0;
  ASSERT_EQ(p2b_shared_model_decide(m.m, items.data(), 6, d, &item, &id), P2B_OK);
  const std::vector<uint8_t> before = saved(m.m);
  const auto refuse = [&](const std::vector<uint8_t>& b, p2b_status want, const char* what) {
    EXPECT_EQ(p2b_shared_model_apply_model_at(m.m, b.data(), b.size(), 1795000100), want) << what;
    EXPECT_EQ(saved(m.m), before) << what;
  };

  std::vector<uint8_t> bad_sig = bundle(c, v(3));
  bad_sig.back() ^= 1;
  refuse(bad_sig, P2B_ERR_BAD_SIGNATURE, "signature");
  uint8_t other_pk[crypto_sign_PUBLICKEYBYTES], other_sk[crypto_sign_SECRETKEYBYTES];
  crypto_sign_keypair(other_pk, other_sk);
  refuse(bundle(c, v(3, 0, other_sk)), P2B_ERR_BAD_SIGNATURE, "other key");
  // Our key's signature over a header that names another signer.
  uint8_t our_fp[16];
  crypto_generichash(our_fp, sizeof our_fp, test_keys().verify_pk, 32, nullptr, 0);
  refuse(resigned(bundle(c, v(3)),
                  [&](std::vector<uint8_t>* body) {
                    auto at = std::search(body->begin(), body->end(), our_fp, our_fp + 16);
                    ASSERT_NE(at, body->end());
                    *at ^= 0xFF;
                  }),
         P2B_ERR_MALFORMED_INPUT, "signer");
  refuse(bundle(c, v(2)), P2B_ERR_MODEL_ROLLBACK, "same version");
  refuse(bundle(c, v(1)), P2B_ERR_MODEL_ROLLBACK, "older version");
  refuse(bundle(cluster(d + 1, 10, 1), v(3)), P2B_ERR_MODEL_SHAPE_MISMATCH, "dim");
  {
    p2b::server::ModelSpec spec;
    spec.dim = d;
    spec.n_actions = 2;
    spec.version = 3;
    std::memcpy(spec.codebook_fp, p2b::kSharedModelCodebookFp, 16);
    std::vector<double> a(2 * d * d, 0.0), b(2 * d, 0.0);
    for (uint32_t i = 0; i < 2 * d; ++i) a[i * d + i % d] = 1.0;
    std::vector<uint8_t> two;
    std::string err;
    ASSERT_TRUE(
        p2b::server::build_model_bundle(spec, a.data(), b.data(), test_keys().sign_sk, &two, &err));
    refuse(two, P2B_ERR_MODEL_SHAPE_MISMATCH, "two arms");
    spec.n_actions = 1;
    spec.codebook_fp[0] ^= 1;
    ASSERT_TRUE(
        p2b::server::build_model_bundle(spec, a.data(), b.data(), test_keys().sign_sk, &two, &err));
    refuse(two, P2B_ERR_CODEBOOK_MISMATCH, "an agent's codebook");
    spec.codebook_fp[0] ^= 1;
    spec.kind = 1;
    ASSERT_TRUE(
        p2b::server::build_model_bundle(spec, a.data(), b.data(), test_keys().sign_sk, &two, &err));
    refuse(two, P2B_ERR_MODEL_KIND, "raw baseline");
  }
  const std::vector<uint8_t> v3 = bundle(c, v(3));
  refuse(resigned(v3, [](std::vector<uint8_t>* body) { body->resize(body->size() - 9); }),
         P2B_ERR_MALFORMED_INPUT, "truncated body");
  refuse(std::vector<uint8_t>(v3.begin(), v3.begin() + 60), P2B_ERR_MALFORMED_INPUT, "too short");
  refuse(std::vector<uint8_t>(v3.begin(), v3.end() - 1), P2B_ERR_BAD_SIGNATURE, "cut signature");
  refuse(bundle(c, v(3, 1795000099)), P2B_ERR_MODEL_EXPIRED, "expired");
  refuse(bundle(c, v(3, 0, nullptr, -10.0)), P2B_ERR_NOT_POSITIVE_DEFINITE, "not PD");
  EXPECT_EQ(p2b_shared_model_apply_model(m.m, nullptr, 10), P2B_ERR_NULL_POINTER);
  EXPECT_EQ(saved(m.m), before);

  // Without a time the not-after field is not checked; the next version applies.
  const std::vector<uint8_t> old = bundle(c, v(3, 1795000099));
  EXPECT_EQ(p2b_shared_model_apply_model(m.m, old.data(), old.size()), P2B_OK);
  EXPECT_EQ(version_of(m.m), 3U);
}

TEST(SharedWarmStartRefusal, NoKeyAFloorAndALargeDimAreRefused) {
  const Cluster c = cluster(3, 10, 1);
  const std::vector<uint8_t> b = bundle(c, v(4));
  Model keyless = make(config(3, P2B_PRECISION_F64, nullptr));
  EXPECT_EQ(p2b_shared_model_apply_model(keyless.m, b.data(), b.size()), P2B_ERR_BAD_CONFIG);
  p2b_shared_config floor = config(3, P2B_PRECISION_F64, test_keys().verify_pk);
  floor.min_model_version = 5;
  Model floored = make(floor);
  EXPECT_EQ(p2b_shared_model_apply_model(floored.m, b.data(), b.size()), P2B_ERR_MODEL_ROLLBACK);
  EXPECT_EQ(version_of(floored.m), 0U);
  Model wide = make(config(65, P2B_PRECISION_F32, test_keys().verify_pk));
  EXPECT_EQ(p2b_shared_model_apply_model(wide.m, b.data(), b.size()), P2B_ERR_DIMENSION_MISMATCH);
}

// The version is part of the saved state: a restored model still refuses
// what it had outgrown.
TEST(SharedWarmStartState, TheVersionSurvivesSaveAndRestore) {
  constexpr uint32_t d = 4;
  const Cluster c = cluster(d, 30, 6);
  const p2b_shared_config cfg = config(d, P2B_PRECISION_F32, test_keys().verify_pk);
  Model a = make(cfg);
  const std::vector<uint8_t> v7 = bundle(c, v(7));
  ASSERT_EQ(p2b_shared_model_apply_model(a.m, v7.data(), v7.size()), P2B_OK);
  const std::vector<uint8_t> blob = saved(a.m);
  Model b = make(cfg);
  ASSERT_EQ(p2b_shared_model_restore(b.m, kKey, blob.data(), blob.size()), P2B_OK);
  EXPECT_EQ(version_of(b.m), 7U);
  EXPECT_EQ(saved(b.m), blob);
  EXPECT_EQ(p2b_shared_model_apply_model(b.m, v7.data(), v7.size()), P2B_ERR_MODEL_ROLLBACK);
  const std::vector<uint8_t> v8 = bundle(c, v(8));
  EXPECT_EQ(p2b_shared_model_apply_model(b.m, v8.data(), v8.size()), P2B_OK);
}

// A format-1 state (before warm starts: no version field) still restores,
// as version 0.
TEST(SharedWarmStartState, AFormatOneStateRestoresAsVersionZero) {
  constexpr uint32_t d = 3;
  const p2b_shared_config cfg = config(d, P2B_PRECISION_F64, test_keys().verify_pk);
  Model a = make(cfg);
  const double x[d] = {0.6, 0.0, 0.8};
  ASSERT_EQ(p2b_shared_model_learn(a.m, x, d, 1.0), P2B_OK);
  std::vector<uint8_t> v2 = saved(a.m);
  // Fixed part: magic, format, 5 u32, 4 f64, 2 u32 + 5 u64, next_id, updates.
  constexpr size_t kVersionAt = 4 + 4 + 5 * 4 + 4 * 8 + 2 * 4 + 5 * 8 + 2 * 8;
  std::vector<uint8_t> v1(v2.begin(), v2.begin() + kVersionAt);
  v1.insert(v1.end(), v2.begin() + kVersionAt + 8, v2.end() - p2b::kStateMacBytes);
  v1[4] = 1;
  const size_t body = v1.size();
  v1.resize(body + p2b::kStateMacBytes);
  p2b::state_mac(kKey, "p2b shared model state MAC key v1", v1.data(), body, v1.data() + body);
  Model b = make(cfg);
  ASSERT_EQ(p2b_shared_model_restore(b.m, kKey, v1.data(), v1.size()), P2B_OK);
  EXPECT_EQ(version_of(b.m), 0U);
  EXPECT_EQ(saved(b.m), v2);
}

}  // namespace
