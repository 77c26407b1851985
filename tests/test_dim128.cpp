// The compiled limits follow P2B_USER_CONFIG_FILE: this test and the core it
// links (p2b_core_dim128) are built with tests/dim128_config.h, which raises
// P2B_MAX_DIM to 128. At d = 128 the agent's LinUCB scores must agree with a
// double-precision fresh solve, and what the wire formats cannot hold at
// that d is refused with a status, not overrun.
#include <gtest/gtest.h>
#include <sodium.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "p2b/agent.hpp"

static_assert(p2b::kMaxDim == 128, "P2B_USER_CONFIG_FILE must set kMaxDim");
static_assert(p2b::kMaxActions == 1024 && p2b::kMaxCodes == 65536 && p2b::kArenaAlign == 16,
              "limits the user config leaves out keep their defaults");

namespace {

constexpr uint32_t kDim = 128;
constexpr uint32_t kArms = 3;
constexpr uint32_t kCodes = 4;

int seal(uint8_t* out, const uint8_t* msg, std::size_t len, const uint8_t* pk) {
  return crypto_box_seal(out, msg, len, pk);
}
int hash(uint8_t* out, std::size_t out_len, const uint8_t* msg, std::size_t len) {
  return crypto_generichash(out, out_len, msg, len, nullptr, 0);
}
int verify(const uint8_t* sig, const uint8_t* msg, std::size_t len, const uint8_t* pk) {
  return crypto_sign_verify_detached(sig, msg, len, pk);
}
int encrypt(uint8_t* out, const uint8_t* msg, std::size_t len, const uint8_t* ad,
            std::size_t ad_len, const uint8_t* nonce, const uint8_t* key) {
  return crypto_aead_xchacha20poly1305_ietf_encrypt(out, nullptr, msg, len, ad, ad_len, nullptr,
                                                    nonce, key);
}
int decrypt(uint8_t* out, const uint8_t* box, std::size_t len, const uint8_t* ad,
            std::size_t ad_len, const uint8_t* nonce, const uint8_t* key) {
  return crypto_aead_xchacha20poly1305_ietf_decrypt(out, nullptr, nullptr, box, len, ad, ad_len,
                                                    nonce, key);
}
int random_bytes(uint8_t* out, std::size_t len) {
  randombytes_buf(out, len);
  return 0;
}

struct Dim128Agent {
  std::vector<float> codebook = std::vector<float>(kCodes * kDim, 1.0F / kDim);
  uint8_t key[p2b::kPublicKeyBytes] = {5};
  p2b::Config cfg;
  std::unique_ptr<void, decltype(&std::free)> arena{nullptr, &std::free};
  p2b::Agent* agent = nullptr;

  Dim128Agent() {
    if (sodium_init() < 0) std::abort();
    cfg.dim = kDim;
    cfg.n_actions = kArms;
    cfg.centroids = codebook.data();
    cfg.n_codes = kCodes;
    cfg.deterministic = true;
    cfg.seed = 128;
    cfg.alpha = 0.5;
    cfg.shuffler_public_key = cfg.analyzer_public_key = cfg.analyzer_verify_key = key;
    cfg.crypto = p2b::CryptoPort{&seal, &hash, &verify, &encrypt, &decrypt, &random_bytes};
  }

  void init() {
    std::size_t bytes = 0;
    ASSERT_EQ(p2b::footprint(cfg, &bytes), p2b::Status::ok);
    arena.reset(std::aligned_alloc(p2b::kArenaAlign, bytes));
    ASSERT_EQ(p2b::Agent::init(arena.get(), bytes, cfg, &agent), p2b::Status::ok);
  }
};

std::vector<float> random_context(std::mt19937_64& rng) {
  std::uniform_real_distribution<float> u(0.0F, 1.0F);
  std::vector<float> x(kDim);
  for (float& v : x) v = u(rng);
  return x;
}

// The context as the agent learns from it: divided by its sum in double,
// then rounded to the core's scalar.
Eigen::VectorXd normalised(const std::vector<float>& x) {
  double sum = 0.0;
  for (float v : x) sum += static_cast<double>(v);
  Eigen::VectorXd out(kDim);
  for (uint32_t i = 0; i < kDim; ++i) {
    out[i] = static_cast<double>(static_cast<p2b::real>(static_cast<double>(x[i]) / sum));
  }
  return out;
}

}  // namespace

TEST(Dim128, FootprintAndInitFollowTheRaisedLimit) {
  Dim128Agent t;
  std::size_t bytes = 0;
  p2b::Shape shape = p2b::shape_of(t.cfg);
  EXPECT_EQ(p2b::footprint(shape, &bytes), p2b::Status::ok);
  shape.dim = 129;
  EXPECT_EQ(p2b::footprint(shape, &bytes), p2b::Status::bad_config);
  t.init();
  ASSERT_NE(t.agent, nullptr);
  EXPECT_EQ(t.agent->dim(), kDim);
}

TEST(Dim128, DecideRewardScoresMatchDoubleReference) {
  Dim128Agent t;
  t.init();
  ASSERT_NE(t.agent, nullptr);
  std::vector<Eigen::MatrixXd> a(kArms, t.cfg.ridge_lambda * Eigen::MatrixXd::Identity(kDim, kDim));
  std::vector<Eigen::VectorXd> b(kArms, Eigen::VectorXd::Zero(kDim));
  std::mt19937_64 rng(7);
  for (int step = 0; step < 600; ++step) {
    const std::vector<float> x = random_context(rng);
    uint32_t action = 0;
    uint64_t id = 0;
    ASSERT_EQ(t.agent->decide(x.data(), kDim, &action, &id), p2b::Status::ok);
    ASSERT_LT(action, kArms);
    const float r = x[action % kDim] > 0.5F ? 1.0F : 0.0F;
    ASSERT_EQ(t.agent->reward(id, r), p2b::Status::ok);
    const Eigen::VectorXd xn = normalised(x);
    a[action] += xn * xn.transpose();
    b[action] += static_cast<double>(r) * xn;
  }
  double worst = 0.0;
  for (int trial = 0; trial < 32; ++trial) {
    const std::vector<float> x = random_context(rng);
    float mean[kArms];
    float width[kArms];
    ASSERT_EQ(t.agent->scores(x.data(), kDim, mean, width, kArms), p2b::Status::ok);
    const Eigen::VectorXd xn = normalised(x);
    for (uint32_t arm = 0; arm < kArms; ++arm) {
      const Eigen::LDLT<Eigen::MatrixXd> solver(a[arm]);
      const double ref =
          solver.solve(b[arm]).dot(xn) + t.cfg.alpha * std::sqrt(xn.dot(solver.solve(xn)));
      const double got =
          static_cast<double>(mean[arm]) + t.cfg.alpha * static_cast<double>(width[arm]);
      const double rel = std::fabs(got - ref) / std::fabs(ref);
      worst = std::max(worst, rel);
      ASSERT_LE(rel, 1e-4) << "arm " << arm << " score " << got << " reference " << ref;
    }
  }
  RecordProperty("worst_relative_error", std::to_string(worst));
}

TEST(Dim128, WireFormatsRefuseWhatTheirMessagesCannotHold) {
  Dim128Agent t;
  t.init();
  ASSERT_NE(t.agent, nullptr);
  std::size_t bytes = 0;
  EXPECT_EQ(t.agent->saved_size(&bytes), p2b::Status::dimension_mismatch);
  EXPECT_EQ(t.agent->encrypted_size(&bytes), p2b::Status::dimension_mismatch);
  uint8_t buf[64] = {};
  const uint8_t key[p2b::kAeadKeyBytes] = {};
  std::size_t written = 0;
  EXPECT_EQ(t.agent->save(key, buf, sizeof buf, &written), p2b::Status::dimension_mismatch);
  EXPECT_EQ(t.agent->restore(key, buf, sizeof buf), p2b::Status::dimension_mismatch);
  EXPECT_EQ(t.agent->apply_model(buf, sizeof buf), p2b::Status::dimension_mismatch);
  EXPECT_EQ(t.agent->apply_model_at(buf, sizeof buf, 0), p2b::Status::dimension_mismatch);
}
