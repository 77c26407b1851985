// The mask side of vertical federation (server/vfl): the orthogonal mask,
// its sealed bundles, the masked messages, the parties' masking, and the
// honest leak tests that document what the active party can learn anyway.
#include <gtest/gtest.h>
#include <sodium.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstring>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "common/keyfiles.hpp"
#include "vfl/mask.hpp"
#include "vfl/mask_bundle.hpp"

namespace {

using p2b::vfl::Mask;
using p2b::vfl::MaskStatus;

std::vector<uint8_t> seed_of(uint8_t tag) {
  std::vector<uint8_t> s(p2b::vfl::kMaskSeedBytes);
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<uint8_t>(tag + 7 * i);
  return s;
}

Mask drawn(uint32_t d, uint8_t tag, uint64_t epoch = 1) {
  Mask m;
  EXPECT_EQ(p2b::vfl::draw_mask(seed_of(tag).data(), d, epoch, &m), MaskStatus::ok);
  return m;
}

Eigen::Map<const Eigen::MatrixXd> as_matrix(const Mask& m) {
  return {m.q.data(), m.d, m.d};
}

TEST(VflMask, OrthogonalToTheToleranceAtEveryDimension) {
  for (const uint32_t d : {10U, 100U, 300U}) {
    const Mask m = drawn(d, 1);
    ASSERT_EQ(m.q.size(), static_cast<std::size_t>(d) * d);
    const Eigen::MatrixXd q = as_matrix(m);
    const double err = (q.transpose() * q - Eigen::MatrixXd::Identity(d, d)).cwiseAbs().maxCoeff();
    EXPECT_LE(err, 1e-12 * d) << "d=" << d;
    EXPECT_EQ(p2b::vfl::orthogonality_error(m.q.data(), d, d), err);
  }
}

TEST(VflMask, SameSeedGivesTheSameMaskBitForBit) {
  const Mask a = drawn(37, 3);
  const Mask b = drawn(37, 3);
  ASSERT_EQ(a.q.size(), b.q.size());
  EXPECT_EQ(std::memcmp(a.q.data(), b.q.data(), a.q.size() * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(a.mask_id, b.mask_id, sizeof a.mask_id), 0);
}

TEST(VflMask, AnotherSeedGivesAnotherMaskAndId) {
  const Mask a = drawn(37, 3);
  const Mask b = drawn(37, 4);
  EXPECT_GT((as_matrix(a) - as_matrix(b)).cwiseAbs().maxCoeff(), 0.1);
  EXPECT_NE(std::memcmp(a.mask_id, b.mask_id, sizeof a.mask_id), 0);
}

TEST(VflMask, IsNotTheIdentityNorASignedPermutation) {
  const Mask m = drawn(10, 5);
  const Eigen::MatrixXd q = as_matrix(m);
  EXPECT_GT((q - Eigen::MatrixXd::Identity(10, 10)).cwiseAbs().maxCoeff(), 0.1);
  // No column close to a coordinate axis: every feature is mixed.
  for (Eigen::Index c = 0; c < q.cols(); ++c) EXPECT_LT(q.col(c).cwiseAbs().maxCoeff(), 0.999);
}

TEST(VflMask, CheckRefusesIdentityNonOrthogonalAndNonFinite) {
  Mask m = drawn(6, 6);
  EXPECT_EQ(p2b::vfl::check_mask(m), MaskStatus::ok);
  Mask identity = m;
  Eigen::Map<Eigen::MatrixXd>(identity.q.data(), 6, 6).setIdentity();
  EXPECT_EQ(p2b::vfl::check_mask(identity), MaskStatus::trivial);
  // A rotation in the last 5 coordinates only: feature 0 would pass in clear.
  Mask partial = identity;
  Eigen::Map<Eigen::MatrixXd>(partial.q.data(), 6, 6).bottomRightCorner(5, 5) =
      Eigen::Map<const Eigen::MatrixXd>(drawn(5, 7).q.data(), 5, 5);
  EXPECT_EQ(p2b::vfl::check_mask(partial), MaskStatus::trivial);
  Mask skewed = m;
  skewed.q[7] += 1e-9;
  EXPECT_EQ(p2b::vfl::check_mask(skewed), MaskStatus::not_orthogonal);
  Mask nan = m;
  nan.q[3] = std::nan("");
  EXPECT_EQ(p2b::vfl::check_mask(nan), MaskStatus::non_finite);
  Mask one = m;
  one.d = 1;
  EXPECT_EQ(p2b::vfl::check_mask(one), MaskStatus::bad_dimension);
}

TEST(VflMask, RefusesDimensionsOutOfRange) {
  Mask m;
  EXPECT_EQ(p2b::vfl::draw_mask(seed_of(1).data(), 1, 1, &m), MaskStatus::bad_dimension);
  EXPECT_EQ(p2b::vfl::draw_mask(seed_of(1).data(), p2b::vfl::kMaxMaskDim + 1, 1, &m),
            MaskStatus::bad_dimension);
  EXPECT_TRUE(m.q.empty());
}

// Haar: Q_00 is the first coordinate of a uniform unit vector, mean 0 and
// variance 1/d; Q_00^2 ~ Beta(1/2, (d-1)/2) has variance 2(d-1)/(d^2(d+2)).
// Tolerances are 4 standard errors of the 200-draw means (a false alarm about
// 1 in 16,000). Without the sign fix Q_00 = -|g_00|/|g| is never positive, and
// the mean test fails by more than 10 standard errors.
TEST(VflMask, FirstEntryLooksHaarDistributed) {
  constexpr uint32_t d = 10;
  constexpr int draws = 200;
  double sum = 0;
  double sum_sq = 0;
  double sum_last = 0;
  for (int i = 0; i < draws; ++i) {
    const Mask m = drawn(d, static_cast<uint8_t>(i));
    sum += m.q[0];
    sum_sq += m.q[0] * m.q[0];
    sum_last += m.q[d * d - 1];
  }
  const double mean_se = std::sqrt(1.0 / d / draws);
  const double var_se = std::sqrt(2.0 * (d - 1) / (d * d * (d + 2.0)) / draws);
  EXPECT_NEAR(sum / draws, 0.0, 4 * mean_se);
  EXPECT_NEAR(sum_last / draws, 0.0, 4 * mean_se);
  EXPECT_NEAR(sum_sq / draws, 1.0 / d, 4 * var_se);
}

TEST(VflMask, PartitionChecks) {
  using p2b::vfl::PartitionCheck;
  EXPECT_EQ(p2b::vfl::check_partition({2, 4}, 6), PartitionCheck::ok);
  EXPECT_EQ(p2b::vfl::check_partition({}, 6), PartitionCheck::empty);
  EXPECT_EQ(p2b::vfl::check_partition({2, 0, 4}, 6), PartitionCheck::zero_block);
  EXPECT_EQ(p2b::vfl::check_partition({2, 3}, 6), PartitionCheck::sum_mismatch);
  EXPECT_EQ(p2b::vfl::check_partition({4097}, 4097), PartitionCheck::too_large);
  EXPECT_EQ(p2b::vfl::column_offset({3, 1, 2}, 2), 4U);
}

TEST(VflMask, BlocksAreTheColumnsOfQ) {
  const Mask m = drawn(9, 8);
  const p2b::vfl::Partition part{2, 3, 4};
  p2b::vfl::MaskBlock b;
  ASSERT_TRUE(p2b::vfl::block(m, part, 1, &b));
  EXPECT_EQ(b.col_offset, 2U);
  EXPECT_EQ(b.d_j, 3U);
  EXPECT_EQ(b.epoch, m.epoch);
  const Eigen::Map<const Eigen::MatrixXd> qj(b.q.data(), 9, 3);
  EXPECT_EQ(qj, as_matrix(m).middleCols(2, 3));
  EXPECT_FALSE(p2b::vfl::block(m, part, 3, &b));
  EXPECT_FALSE(p2b::vfl::block(m, {2, 3, 3}, 0, &b));
}

// ---- P2BQ bundles ----------------------------------------------------------

using p2b::vfl::BundleExpect;
using p2b::vfl::BundleStatus;
using Bytes = std::vector<uint8_t>;

struct BoxPair {
  uint8_t pk[crypto_box_PUBLICKEYBYTES];
  uint8_t sk[crypto_box_SECRETKEYBYTES];
  BoxPair() { crypto_box_keypair(pk, sk); }
};

struct SignPair {
  uint8_t pk[crypto_sign_PUBLICKEYBYTES];
  uint8_t sk[crypto_sign_SECRETKEYBYTES];
  SignPair() { crypto_sign_keypair(pk, sk); }
};

// d = 6 split {2, 4}: small enough to flip every bit of a sealed bundle.
class VflBundle : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_GE(sodium_init(), 0);
    mask_ = drawn(6, 21, 5);
  }

  Bytes sealed(uint32_t party, const SignPair& signer, const Mask& m) const {
    Bytes out;
    std::string err;
    EXPECT_TRUE(p2b::vfl::seal_mask_bundle(m, part_, party, kCreated, signer.sk, party_[party].pk,
                                           &out, &err))
        << err;
    return out;
  }
  Bytes sealed(uint32_t party) const { return sealed(party, pmg_, mask_); }

  BundleStatus open(const Bytes& b, uint32_t party, const BundleExpect& e,
                    p2b::vfl::OpenedBundle* out) const {
    return p2b::vfl::open_mask_bundle(b.data(), b.size(), party_[party].pk, party_[party].sk,
                                      pmg_.pk, e, out);
  }
  BundleStatus open(const Bytes& b, uint32_t party) const {
    p2b::vfl::OpenedBundle out;
    return open(b, party, BundleExpect{party, 6, nullptr}, &out);
  }

  // The PMG's signed plaintext for party 1, changed by `edit`, signed again
  // with the PMG's own key and sealed: what a PMG with a bug would send.
  template <typename Edit>
  Bytes resigned(Edit edit) const {
    Bytes plain;
    std::string err;
    EXPECT_TRUE(p2b::vfl::encode_mask_bundle(mask_, part_, 1, kCreated, pmg_.sk, &plain, &err));
    plain.resize(plain.size() - crypto_sign_BYTES);
    edit(&plain);
    const std::size_t n = plain.size();
    plain.resize(n + crypto_sign_BYTES);
    crypto_sign_detached(plain.data() + n, nullptr, plain.data(), n, pmg_.sk);
    Bytes out(plain.size() + crypto_box_SEALBYTES);
    EXPECT_EQ(crypto_box_seal(out.data(), plain.data(), plain.size(), party_[1].pk), 0);
    return out;
  }

  static void put_u32_at(Bytes* b, std::size_t off, uint32_t v) {
    for (int i = 0; i < 4; ++i) (*b)[off + i] = static_cast<uint8_t>(v >> (8 * i));
  }

  static constexpr uint64_t kCreated = 1795000000;
  Mask mask_;
  p2b::vfl::Partition part_{2, 4};
  SignPair pmg_;
  BoxPair party_[2];
};

TEST_F(VflBundle, RoundTripGivesThePartyItsBlockBitForBit) {
  p2b::vfl::MaskBlock want;
  ASSERT_TRUE(p2b::vfl::block(mask_, part_, 1, &want));
  const Bytes b = sealed(1);
  EXPECT_EQ(b.size(), p2b::vfl::mask_bundle_sealed_bytes(2, 6, 4));
  EXPECT_EQ(b.size(), 180U + 4 * 2 + 8 * 6 * 4);
  p2b::vfl::OpenedBundle got;
  ASSERT_EQ(open(b, 1, BundleExpect{1, 6, nullptr}, &got), BundleStatus::ok);
  EXPECT_EQ(got.block.d, 6U);
  EXPECT_EQ(got.block.party_index, 1U);
  EXPECT_EQ(got.block.partition, part_);
  EXPECT_EQ(got.block.col_offset, 2U);
  EXPECT_EQ(got.block.d_j, 4U);
  EXPECT_EQ(got.block.epoch, 5U);
  EXPECT_EQ(got.created_unix, kCreated);
  EXPECT_EQ(std::memcmp(got.block.mask_id, mask_.mask_id, sizeof got.block.mask_id), 0);
  uint8_t fp[16];
  crypto_generichash(fp, sizeof fp, pmg_.pk, sizeof pmg_.pk, nullptr, 0);
  EXPECT_EQ(std::memcmp(got.signer_fp, fp, sizeof fp), 0);
  ASSERT_EQ(got.block.q.size(), want.q.size());
  EXPECT_EQ(std::memcmp(got.block.q.data(), want.q.data(), want.q.size() * sizeof(double)), 0);
  // Party 0 gets its own block from its own bundle.
  p2b::vfl::OpenedBundle first;
  ASSERT_EQ(open(sealed(0), 0, BundleExpect{0, 6, nullptr}, &first), BundleStatus::ok);
  EXPECT_EQ(first.block.col_offset, 0U);
  EXPECT_EQ(first.block.d_j, 2U);
}

TEST_F(VflBundle, SizeAtThePapersSetting) {
  // d = 100 in five blocks of 20: 16,200 bytes on the wire.
  EXPECT_EQ(p2b::vfl::mask_bundle_sealed_bytes(5, 100, 20), 16200U);
  const Mask big = drawn(100, 22);
  Bytes out;
  std::string err;
  ASSERT_TRUE(p2b::vfl::seal_mask_bundle(big, {20, 20, 20, 20, 20}, 3, kCreated, pmg_.sk,
                                         party_[1].pk, &out, &err));
  EXPECT_EQ(out.size(), 16200U);
}

TEST_F(VflBundle, EveryBitFlipIsRefused) {
  const Bytes good = sealed(1);
  ASSERT_EQ(open(good, 1), BundleStatus::ok);
  for (std::size_t bit = 0; bit < good.size() * 8; ++bit) {
    Bytes b = good;
    b[bit / 8] ^= static_cast<uint8_t>(1U << (bit % 8));
    ASSERT_EQ(open(b, 1), BundleStatus::not_openable) << "bit " << bit;
  }
}

TEST_F(VflBundle, AnotherPartysKeyCannotOpenIt) {
  EXPECT_EQ(open(sealed(1), 0), BundleStatus::not_openable);
}

TEST_F(VflBundle, AnotherExpectedPartyIndexIsRefused) {
  p2b::vfl::OpenedBundle out;
  // Sealed to party 1's key, but that party expected to be index 0.
  EXPECT_EQ(open(sealed(1), 1, BundleExpect{0, 6, nullptr}, &out), BundleStatus::wrong_party);
}

TEST_F(VflBundle, AnUntrustedSignerIsRefused) {
  const SignPair stranger;
  EXPECT_EQ(open(sealed(1, stranger, mask_), 1), BundleStatus::untrusted_signer);
}

TEST_F(VflBundle, ASignatureThatDoesNotVerifyIsRefused) {
  // Anyone can seal to the party: a forger names the PMG but cannot sign.
  Bytes plain;
  std::string err;
  ASSERT_TRUE(p2b::vfl::encode_mask_bundle(mask_, part_, 1, kCreated, pmg_.sk, &plain, &err));
  plain[plain.size() - 70] ^= 1;  // one bit of Q^j, signature left as it was
  Bytes b(plain.size() + crypto_box_SEALBYTES);
  ASSERT_EQ(crypto_box_seal(b.data(), plain.data(), plain.size(), party_[1].pk), 0);
  EXPECT_EQ(open(b, 1), BundleStatus::bad_signature);
}

TEST_F(VflBundle, RollbackToTheSameOrAnOlderEpochIsRefused) {
  p2b::vfl::MaskVersion last;
  std::memcpy(last.mask_id, mask_.mask_id, sizeof last.mask_id);
  p2b::vfl::OpenedBundle out;
  last.epoch = 5;  // this very bundle, delivered again
  EXPECT_EQ(open(sealed(1), 1, BundleExpect{1, 6, &last}, &out), BundleStatus::rollback);
  last.epoch = 6;  // an older one after a newer
  EXPECT_EQ(open(sealed(1), 1, BundleExpect{1, 6, &last}, &out), BundleStatus::rollback);
  last.epoch = 4;
  EXPECT_EQ(open(sealed(1), 1, BundleExpect{1, 6, &last}, &out), BundleStatus::ok);
}

TEST_F(VflBundle, APartitionNotSummingToDIsRefused) {
  EXPECT_EQ(open(resigned([](Bytes* p) { put_u32_at(p, 20, 3); }), 1), BundleStatus::bad_partition);
}

TEST_F(VflBundle, AZeroBlockIsRefused) {
  // {0, 6} sums to d; party 1's block would then be all of Q.
  EXPECT_EQ(open(resigned([](Bytes* p) {
                   put_u32_at(p, 20, 0);
                   put_u32_at(p, 24, 6);
                 }),
                 1),
            BundleStatus::zero_block);
}

TEST_F(VflBundle, AnotherDimensionIsRefused) {
  p2b::vfl::OpenedBundle out;
  EXPECT_EQ(open(sealed(1), 1, BundleExpect{1, 7, nullptr}, &out), BundleStatus::wrong_dimension);
}

TEST_F(VflBundle, ABlockThatIsNotOrthonormalIsRefused) {
  // The last value is Q^j's bottom-right entry.
  EXPECT_EQ(open(resigned([](Bytes* p) { p->back() ^= 0x10; }), 1), BundleStatus::not_orthonormal);
  EXPECT_EQ(open(resigned([](Bytes* p) { std::memset(p->data() + p->size() - 8, 0xFF, 8); }), 1),
            BundleStatus::not_orthonormal);  // a NaN
}

TEST_F(VflBundle, LengthsAndMagicAreChecked) {
  EXPECT_EQ(open(resigned([](Bytes* p) { p->push_back(0); }), 1), BundleStatus::bad_length);
  EXPECT_EQ(open(resigned([](Bytes* p) { p->resize(p->size() - 8); }), 1),
            BundleStatus::bad_length);
  EXPECT_EQ(open(resigned([](Bytes* p) { (*p)[3] = 'M'; }), 1), BundleStatus::malformed);
  EXPECT_EQ(open(resigned([](Bytes* p) { put_u32_at(p, 4, 2); }), 1), BundleStatus::malformed);
  const Bytes good = sealed(1);
  EXPECT_EQ(open(Bytes(good.begin(), good.begin() + 100), 1), BundleStatus::bad_length);
  EXPECT_EQ(open(Bytes(good.begin(), good.end() - 1), 1), BundleStatus::not_openable);
}

// The keys are the raw files p2b-keygen writes and the services read.
TEST_F(VflBundle, OpensWithKeysReadFromKeyFiles) {
  namespace kf = p2b::keyfiles;
  const std::string dir = ::testing::TempDir() + "vfl-keys-" + std::to_string(::getpid());
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  std::string err;
  ASSERT_TRUE(
      kf::create_key_file(dir + "/party.box.pk", party_[1].pk, 32, kf::KeyKind::public_key, &err));
  ASSERT_TRUE(
      kf::create_key_file(dir + "/party.box.sk", party_[1].sk, 32, kf::KeyKind::secret_key, &err));
  ASSERT_TRUE(
      kf::create_key_file(dir + "/pmg.sign.pk", pmg_.pk, 32, kf::KeyKind::public_key, &err));
  uint8_t pk[32];
  uint8_t sk[32];
  uint8_t pmg_pk[32];
  std::string warning;
  ASSERT_TRUE(kf::read_key_file(dir + "/party.box.pk", pk, sizeof pk, &err)) << err;
  ASSERT_TRUE(kf::read_secret_key_file(dir + "/party.box.sk", sk, sizeof sk, &err, &warning));
  ASSERT_TRUE(kf::read_key_file(dir + "/pmg.sign.pk", pmg_pk, sizeof pmg_pk, &err));
  const Bytes b = sealed(1);
  p2b::vfl::OpenedBundle out;
  EXPECT_EQ(p2b::vfl::open_mask_bundle(b.data(), b.size(), pk, sk, pmg_pk,
                                       BundleExpect{1, 6, nullptr}, &out),
            BundleStatus::ok);
  for (const char* f : {"/party.box.pk", "/party.box.sk", "/pmg.sign.pk"}) {
    ::unlink((dir + f).c_str());
  }
  ::rmdir(dir.c_str());
}

}  // namespace
