// Signed warm-start models: a good one reproduces its source model; every
// rejection reason has its own status and leaves the agent unchanged.
#include <gtest/gtest.h>
#include <pb_decode.h>
#include <pb_encode.h>

#include "model_support.hpp"
#include "p2b.pb.h"

namespace {

constexpr uint32_t kDim = 5;
constexpr uint32_t kArms = 3;

p2b_test::TestAgent trained(int n, uint64_t seed) {
  auto t = p2b_test::make_agent(p2b_test::base_config(kDim, kArms, 16, seed));
  std::mt19937_64 env(seed);
  for (int i = 0; i < n; ++i) {
    const std::vector<float> x = p2b_test::simplex_point(env, kDim);
    EXPECT_EQ(p2b_agent_learn(t.agent, x.data(), kDim, i % kArms, x[0] > 0.3F ? 1.0F : 0.0F),
              P2B_OK);
  }
  return t;
}

void expect_same_scores(p2b_agent* x_agent, p2b_agent* y_agent) {
  p2b_test::expect_same_scores(x_agent, y_agent, kDim, kArms, 1e-4);
}

// A signed bundle for `agent`'s codebook with identity A and zero b, which
// the caller then spoils; the pieces come back so it can.
struct IdentityModel {
  p2b::server::ModelSpec spec;
  std::vector<double> a = std::vector<double>(kArms * kDim * kDim, 0.0);
  std::vector<double> b = std::vector<double>(kArms * kDim, 0.0);
  IdentityModel(const p2b_agent* agent, uint64_t version) {
    spec.dim = kDim;
    spec.n_actions = kArms;
    spec.version = version;
    p2b_fingerprints fp;
    EXPECT_EQ(p2b_agent_fingerprints(agent, &fp), P2B_OK);
    std::memcpy(spec.codebook_fp, fp.codebook, sizeof spec.codebook_fp);
    for (uint32_t arm = 0; arm < kArms; ++arm) {
      for (uint32_t i = 0; i < kDim; ++i) a[(arm * kDim + i) * kDim + i] = 1.0;
    }
  }
  std::vector<uint8_t> sign() const {
    std::vector<uint8_t> bundle;
    std::string err;
    EXPECT_TRUE(p2b::server::build_model_bundle(spec, a.data(), b.data(),
                                                p2b_test::test_keys().sign_sk, &bundle, &err));
    return bundle;
  }
};

TEST(Model, SignedBundleWarmStartsAnAgent) {
  auto source = trained(2000, 1);
  auto device = trained(50, 2);
  const auto bundle = p2b_test::bundle_from(source.agent, kDim, kArms, {7});
  ASSERT_EQ(p2b_agent_apply_model(device.agent, bundle.data(), bundle.size()), P2B_OK);
  expect_same_scores(source.agent, device.agent);
  uint64_t version = 0;
  ASSERT_EQ(p2b_agent_model_version(device.agent, &version), P2B_OK);
  EXPECT_EQ(version, 7U);
  std::printf("[ figure ] model bundle for d=%u K=%u: %zu bytes\n", kDim, kArms, bundle.size());
}

TEST(Model, NewerVersionsApplyAndAntiRollbackSurvivesRestart) {
  auto source = trained(500, 1);
  auto device = trained(10, 2);
  const auto v3 = p2b_test::bundle_from(source.agent, kDim, kArms, {3});
  const auto v5 = p2b_test::bundle_from(source.agent, kDim, kArms, {5});
  ASSERT_EQ(p2b_agent_apply_model(device.agent, v3.data(), v3.size()), P2B_OK);
  ASSERT_EQ(p2b_agent_apply_model(device.agent, v5.data(), v5.size()), P2B_OK);
  const std::vector<uint8_t> state = p2b_test::saved(device.agent);
  auto restarted = trained(0, 2);
  ASSERT_EQ(
      p2b_agent_restore(restarted.agent, p2b_test::test_state_key(), state.data(), state.size()),
      P2B_OK);
  EXPECT_EQ(p2b_agent_apply_model(restarted.agent, v3.data(), v3.size()), P2B_ERR_MODEL_ROLLBACK);
  EXPECT_EQ(p2b_agent_apply_model(restarted.agent, v5.data(), v5.size()), P2B_ERR_MODEL_ROLLBACK);
}

class ModelRejection : public ::testing::Test {
 protected:
  void SetUp() override {
    source_ = trained(800, 1);
    device_ = trained(100, 2);
    const auto v2 = p2b_test::bundle_from(source_.agent, kDim, kArms, {2});
    ASSERT_EQ(p2b_agent_apply_model(device_.agent, v2.data(), v2.size()), P2B_OK);
    good_ = p2b_test::bundle_from(source_.agent, kDim, kArms, {9});
    before_ = p2b_test::saved(device_.agent);
  }
  p2b_status apply(const std::vector<uint8_t>& b) {
    return p2b_agent_apply_model(device_.agent, b.data(), b.size());
  }
  void TearDown() override { EXPECT_EQ(p2b_test::saved(device_.agent), before_); }
  p2b_test::TestAgent source_, device_;
  std::vector<uint8_t> good_, before_;
};

TEST_F(ModelRejection, EveryBitFlipBreaksTheSignature) {
  for (size_t bit = 0; bit < good_.size() * 8; bit += 3) {
    std::vector<uint8_t> bad = good_;
    bad[bit / 8] ^= static_cast<uint8_t>(1U << (bit % 8));
    const p2b_status s = apply(bad);
    ASSERT_TRUE(s == P2B_ERR_BAD_SIGNATURE || (bit < 32 && s == P2B_ERR_MALFORMED_INPUT))
        << "bit " << bit << ": " << p2b_status_str(s);
  }
}

TEST_F(ModelRejection, ModelSignedByAnotherKeyIsRefused) {
  uint8_t pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
  crypto_sign_keypair(pk, sk);
  p2b_test::BundleOptions opt{9};
  opt.sign_sk = sk;
  EXPECT_EQ(apply(p2b_test::bundle_from(source_.agent, kDim, kArms, opt)), P2B_ERR_BAD_SIGNATURE);
}

TEST_F(ModelRejection, WrongDimensionOrActionCountIsRefused) {
  p2b_test::BundleOptions opt{9};
  opt.dim_delta = 1;
  EXPECT_EQ(apply(p2b_test::bundle_from(source_.agent, kDim, kArms, opt)),
            P2B_ERR_MODEL_SHAPE_MISMATCH);
  opt.dim_delta = 0;
  opt.actions_delta = -1;
  EXPECT_EQ(apply(p2b_test::bundle_from(source_.agent, kDim, kArms, opt)),
            P2B_ERR_MODEL_SHAPE_MISMATCH);
}

TEST_F(ModelRejection, ModelForAnotherCodebookIsRefused) {
  p2b_test::BundleOptions opt{9};
  opt.other_codebook = true;
  EXPECT_EQ(apply(p2b_test::bundle_from(source_.agent, kDim, kArms, opt)),
            P2B_ERR_CODEBOOK_MISMATCH);
}

TEST_F(ModelRejection, SameOrOlderVersionIsRollback) {
  EXPECT_EQ(apply(p2b_test::bundle_from(source_.agent, kDim, kArms, {2})), P2B_ERR_MODEL_ROLLBACK);
  EXPECT_EQ(apply(p2b_test::bundle_from(source_.agent, kDim, kArms, {1})), P2B_ERR_MODEL_ROLLBACK);
}

TEST_F(ModelRejection, TruncatedOrGarbageBundlesAreMalformed) {
  std::vector<uint8_t> garbage(good_.size(), 0x5A);
  EXPECT_EQ(apply(garbage), P2B_ERR_MALFORMED_INPUT);
  for (size_t n = 0; n < good_.size(); ++n) {
    const p2b_status s = p2b_agent_apply_model(device_.agent, good_.data(), n);
    ASSERT_TRUE(s == P2B_ERR_MALFORMED_INPUT || s == P2B_ERR_BAD_SIGNATURE) << n;
  }
}

// Re-signs `bundle` (by the test deployment's key) with another format in
// its header, as an older or newer builder would write it.
std::vector<uint8_t> with_format(const std::vector<uint8_t>& bundle, uint32_t format) {
  pb_istream_t is = pb_istream_from_buffer(bundle.data() + 4, bundle.size() - 4 - 64);
  p2b_v1_ModelHeader h = p2b_v1_ModelHeader_init_zero;
  EXPECT_TRUE(pb_decode_delimited(&is, p2b_v1_ModelHeader_fields, &h));
  const size_t rest_at = bundle.size() - 64 - is.bytes_left;
  h.format = format;
  std::vector<uint8_t> out(bundle.size() + 16);
  std::memcpy(out.data(), bundle.data(), 4);
  pb_ostream_t os = pb_ostream_from_buffer(out.data() + 4, out.size() - 4);
  EXPECT_TRUE(pb_encode_delimited(&os, p2b_v1_ModelHeader_fields, &h));
  out.resize(4 + os.bytes_written);
  out.insert(out.end(), bundle.begin() + static_cast<std::ptrdiff_t>(rest_at), bundle.end() - 64);
  uint8_t sig[crypto_sign_BYTES];
  crypto_sign_detached(sig, nullptr, out.data(), out.size(), p2b_test::test_keys().sign_sk);
  out.insert(out.end(), sig, sig + sizeof sig);
  return out;
}

TEST_F(ModelRejection, OnlyFormatTwoIsAccepted) {
  EXPECT_EQ(apply(with_format(good_, 1)), P2B_ERR_UNSUPPORTED_VERSION);
  EXPECT_EQ(apply(with_format(good_, 3)), P2B_ERR_UNSUPPORTED_VERSION);
}

// The attack: with --enable-raw-baseline the analyzer signs a non-private
// model; a production device must neither apply it nor let its version lock
// out the private model.
TEST_F(ModelRejection, RawBaselineModelIsRefusedByDefault) {
  p2b_test::BundleOptions opt{1000};
  opt.kind = 1;
  EXPECT_EQ(apply(p2b_test::bundle_from(source_.agent, kDim, kArms, opt)), P2B_ERR_MODEL_KIND);
  uint64_t priv = 0, raw = 0;
  ASSERT_EQ(p2b_agent_model_version_of(device_.agent, P2B_MODEL_PRIVATE, &priv), P2B_OK);
  ASSERT_EQ(p2b_agent_model_version_of(device_.agent, P2B_MODEL_RAW_BASELINE, &raw), P2B_OK);
  EXPECT_EQ(priv, 2U);
  EXPECT_EQ(raw, 0U);
}

TEST_F(ModelRejection, UnknownKindIsRefused) {
  p2b_test::BundleOptions opt{9};
  opt.kind = 2;
  EXPECT_EQ(apply(p2b_test::bundle_from(source_.agent, kDim, kArms, opt)), P2B_ERR_MODEL_KIND);
}

TEST_F(ModelRejection, ExpiredModelIsRefusedGivenTheTime) {
  p2b_test::BundleOptions opt{9};
  opt.not_after_unix = 1795003600;
  const auto b = p2b_test::bundle_from(source_.agent, kDim, kArms, opt);
  EXPECT_EQ(p2b_agent_apply_model_at(device_.agent, b.data(), b.size(), 1795003601),
            P2B_ERR_MODEL_EXPIRED);
  EXPECT_EQ(p2b_agent_apply_model_at(device_.agent, b.data(), b.size(), UINT64_MAX),
            P2B_ERR_MODEL_EXPIRED);
}

TEST_F(ModelRejection, SignedButIndefiniteStatisticsAreRefused) {
  // A correctly signed bundle whose last arm has A_00 = -1.
  IdentityModel m(device_.agent, 10);
  m.a[(kArms - 1) * kDim * kDim] = -1.0;
  EXPECT_EQ(apply(m.sign()), P2B_ERR_NOT_POSITIVE_DEFINITE);
}

// Each arm is factored as its columns arrive, so the factorisation fails at
// column 0 here; the arm's later columns must still be read and found
// malformed, as when every column was parsed before any was factored.
TEST_F(ModelRejection, AnIndefiniteArmWithAMalformedColumnIsMalformed) {
  IdentityModel m(device_.agent, 10);
  const uint32_t arm = 1;
  m.a[arm * kDim * kDim] = -1.0;
  m.a[(arm * kDim + kDim - 1) * kDim + kDim - 1] = std::nan("");
  EXPECT_EQ(apply(m.sign()), P2B_ERR_MALFORMED_INPUT);
}

// A bundle and an import of the same statistics go through the same
// factorisation and the same staging, so they leave the very same factors.
TEST(Model, ABundleAndAnImportOfTheSameStatisticsLeaveTheSameFactors) {
  auto source = trained(800, 1);
  auto by_model = trained(30, 2);
  auto by_import = trained(60, 3);
  std::vector<double> a(kArms * kDim * kDim);
  std::vector<double> b(kArms * kDim);
  ASSERT_EQ(p2b_agent_export(source.agent, a.data(), b.data(), kArms, kDim), P2B_OK);
  const auto bundle = p2b_test::bundle_from(source.agent, kDim, kArms, {4});
  ASSERT_EQ(p2b_agent_apply_model(by_model.agent, bundle.data(), bundle.size()), P2B_OK);
  ASSERT_EQ(p2b_agent_import(by_import.agent, a.data(), b.data(), kArms, kDim, P2B_STATS_GRAM),
            P2B_OK);
  std::vector<double> a_model(a.size()), b_model(b.size()), a_import(a.size()), b_import(b.size());
  ASSERT_EQ(p2b_agent_export(by_model.agent, a_model.data(), b_model.data(), kArms, kDim), P2B_OK);
  ASSERT_EQ(p2b_agent_export(by_import.agent, a_import.data(), b_import.data(), kArms, kDim),
            P2B_OK);
  EXPECT_EQ(a_model, a_import);
  EXPECT_EQ(b_model, b_import);
  expect_same_scores(by_model.agent, by_import.agent);
}

}  // namespace

namespace {

// Found by fuzz_model_bundle: a signed b beyond FLT_MAX used to be cast to
// float, which is undefined behaviour. Such values are refused instead.
TEST(Model, ValuesBeyondTheScalarRangeAreRefused) {
  auto device = trained(10, 2);
  const std::vector<uint8_t> before = p2b_test::saved(device.agent);
  IdentityModel m(device.agent, 4);
  m.b[2] = 1e300;
  const std::vector<uint8_t> with_huge_b = m.sign();
  const p2b_status huge_b =
      p2b_agent_apply_model(device.agent, with_huge_b.data(), with_huge_b.size());
  m.b[2] = 0.0;
  m.a[0] = 1e300;  // its factor, 1e150, is beyond float as well
  const std::vector<uint8_t> with_huge_a = m.sign();
  const p2b_status huge_a =
      p2b_agent_apply_model(device.agent, with_huge_a.data(), with_huge_a.size());
  // Beyond the bounds honest statistics keep (ridge_arm.hpp), in float and
  // double builds alike.
  EXPECT_EQ(huge_b, P2B_ERR_MALFORMED_INPUT);
  EXPECT_EQ(huge_a, P2B_ERR_NOT_POSITIVE_DEFINITE);
  EXPECT_EQ(p2b_test::saved(device.agent), before);
}

}  // namespace

namespace {

TEST(Model, RawBaselineAppliesWithTheFlagAndNeverBlocksThePrivateModel) {
  auto source = trained(500, 1);
  p2b_config cfg = p2b_test::base_config(kDim, kArms, 16, 2);
  cfg.accept_baseline_models = 1;
  auto device = p2b_test::make_agent(cfg);
  p2b_test::BundleOptions raw_opt{50};
  raw_opt.kind = 1;
  const auto raw = p2b_test::bundle_from(source.agent, kDim, kArms, raw_opt);
  ASSERT_EQ(p2b_agent_apply_model(device.agent, raw.data(), raw.size()), P2B_OK);
  // A private model with a lower version still applies: versions are per kind.
  const auto priv = p2b_test::bundle_from(source.agent, kDim, kArms, {3});
  ASSERT_EQ(p2b_agent_apply_model(device.agent, priv.data(), priv.size()), P2B_OK);
  uint64_t v_priv = 0, v_raw = 0;
  ASSERT_EQ(p2b_agent_model_version(device.agent, &v_priv), P2B_OK);
  EXPECT_EQ(v_priv, 3U);
  ASSERT_EQ(p2b_agent_model_version_of(device.agent, P2B_MODEL_RAW_BASELINE, &v_raw), P2B_OK);
  EXPECT_EQ(v_raw, 50U);
  // Both versions survive a restart; each kind keeps its own anti-rollback.
  const std::vector<uint8_t> state = p2b_test::saved(device.agent);
  auto restarted = p2b_test::make_agent(cfg);
  ASSERT_EQ(
      p2b_agent_restore(restarted.agent, p2b_test::test_state_key(), state.data(), state.size()),
      P2B_OK);
  EXPECT_EQ(p2b_agent_apply_model(restarted.agent, raw.data(), raw.size()), P2B_ERR_MODEL_ROLLBACK);
  EXPECT_EQ(p2b_agent_apply_model(restarted.agent, priv.data(), priv.size()),
            P2B_ERR_MODEL_ROLLBACK);
  const auto priv4 = p2b_test::bundle_from(source.agent, kDim, kArms, {4});
  EXPECT_EQ(p2b_agent_apply_model(restarted.agent, priv4.data(), priv4.size()), P2B_OK);
  // Experiments accept kind 1 only, never an unknown kind.
  p2b_test::BundleOptions unknown{60};
  unknown.kind = 7;
  const auto u = p2b_test::bundle_from(source.agent, kDim, kArms, unknown);
  EXPECT_EQ(p2b_agent_apply_model(restarted.agent, u.data(), u.size()), P2B_ERR_MODEL_KIND);
}

TEST(Model, NotAfterIsCheckedOnlyAgainstATimeGiven) {
  auto source = trained(200, 1);
  p2b_test::BundleOptions opt{5};
  opt.not_after_unix = 1795003600;
  const auto b = p2b_test::bundle_from(source.agent, kDim, kArms, opt);
  auto at_the_limit = trained(10, 2);
  EXPECT_EQ(p2b_agent_apply_model_at(at_the_limit.agent, b.data(), b.size(), 1795003600), P2B_OK);
  // Without a time, apply_model skips only the not-after check.
  auto timeless = trained(10, 2);
  EXPECT_EQ(p2b_agent_apply_model(timeless.agent, b.data(), b.size()), P2B_OK);
  // No not-after time: any time will do.
  const auto forever = p2b_test::bundle_from(source.agent, kDim, kArms, {6});
  EXPECT_EQ(p2b_agent_apply_model_at(timeless.agent, forever.data(), forever.size(), UINT64_MAX),
            P2B_OK);
}

// The attack: a fresh device has applied nothing, so any old signed model
// used to be newer than its version 0. The floor set at init refuses it.
TEST(Model, FreshDeviceRefusesModelsBelowTheMinimumVersion) {
  auto source = trained(200, 1);
  p2b_config cfg = p2b_test::base_config(kDim, kArms, 16, 2);
  cfg.min_model_version = 10;
  auto fresh = p2b_test::make_agent(cfg);
  const std::vector<uint8_t> before = p2b_test::saved(fresh.agent);
  const auto old = p2b_test::bundle_from(source.agent, kDim, kArms, {9});
  EXPECT_EQ(p2b_agent_apply_model(fresh.agent, old.data(), old.size()), P2B_ERR_MODEL_ROLLBACK);
  EXPECT_EQ(p2b_agent_apply_model_at(fresh.agent, old.data(), old.size(), 1795000000),
            P2B_ERR_MODEL_ROLLBACK);
  EXPECT_EQ(p2b_test::saved(fresh.agent), before);
  uint64_t version = 1;
  ASSERT_EQ(p2b_agent_model_version(fresh.agent, &version), P2B_OK);
  EXPECT_EQ(version, 0U);
  const auto current = p2b_test::bundle_from(source.agent, kDim, kArms, {10});
  EXPECT_EQ(p2b_agent_apply_model(fresh.agent, current.data(), current.size()), P2B_OK);
}

TEST(Model, AcceptBaselineModelsIsZeroOrOne) {
  p2b_config cfg = p2b_test::base_config(kDim, kArms, 16, 2);
  const std::vector<float> book = p2b_test::random_codebook(16, kDim, 7);
  cfg.centroids = book.data();
  cfg.accept_baseline_models = 2;
  size_t bytes = 0;
  ASSERT_EQ(p2b_agent_footprint(&cfg, &bytes), P2B_OK);
  auto mem = p2b_test::aligned_arena(bytes);
  p2b_agent* agent = nullptr;
  EXPECT_EQ(p2b_agent_init(mem.get(), bytes, &cfg, &agent), P2B_ERR_BAD_CONFIG);
  EXPECT_EQ(agent, nullptr);
}

}  // namespace
