// Signed warm-start models: a good one reproduces its source model; every
// rejection reason has its own status and leaves the agent unchanged.
#include <gtest/gtest.h>

#include "model_support.hpp"

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
  ASSERT_EQ(p2b_agent_restore(restarted.agent, state.data(), state.size()), P2B_OK);
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

TEST_F(ModelRejection, SignedButIndefiniteStatisticsAreRefused) {
  // A correctly signed bundle whose last arm has A_00 = -1.
  IdentityModel m(device_.agent, 10);
  m.a[(kArms - 1) * kDim * kDim] = -1.0;
  EXPECT_EQ(apply(m.sign()), P2B_ERR_NOT_POSITIVE_DEFINITE);
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
