// The mask side of vertical federation (server/vfl): the orthogonal mask,
// its sealed bundles, the masked messages, the parties' masking, and the
// honest leak tests that document what the active party can learn anyway.
#include <gtest/gtest.h>
#include <sodium.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "common/keyfiles.hpp"
#include "vfl/mask.hpp"
#include "vfl/mask_bundle.hpp"
#include "vfl/masked_message.hpp"
#include "vfl/party_mask.hpp"

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
  uint8_t pk[crypto_box_PUBLICKEYBYTES]{};
  uint8_t sk[crypto_box_SECRETKEYBYTES]{};
  BoxPair() { crypto_box_keypair(pk, sk); }
};

struct SignPair {
  uint8_t pk[crypto_sign_PUBLICKEYBYTES]{};
  uint8_t sk[crypto_sign_SECRETKEYBYTES]{};
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

// ---- P2BV masked messages --------------------------------------------------

using p2b::vfl::MaskedHeader;
using p2b::vfl::MessageExpect;
using p2b::vfl::MessageStatus;

class VflMessage : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_GE(sodium_init(), 0);
    mask_ = drawn(6, 31, 9);
    std::mt19937_64 rng(7);
    std::normal_distribution<double> g;
    values_.resize(kItems * 6);
    for (double& v : values_) v = g(rng);
  }

  MaskedHeader header(uint64_t round) const {
    MaskedHeader h;
    std::memcpy(h.mask_id, mask_.mask_id, sizeof h.mask_id);
    h.epoch = mask_.epoch;
    h.party_index = 2;
    h.round_id = round;
    std::memset(h.user_token, 0xAB, sizeof h.user_token);
    h.k_items = kItems;
    h.d = 6;
    return h;
  }

  Bytes sealed(uint64_t round) const {
    Bytes out;
    std::string err;
    EXPECT_TRUE(
        p2b::vfl::seal_masked_message(header(round), values_.data(), party_.sk, ap_.pk, &out, &err))
        << err;
    return out;
  }

  MessageExpect expect(uint64_t last_round) const {
    MessageExpect e;
    e.party_index = 2;
    std::memcpy(e.current.mask_id, mask_.mask_id, sizeof e.current.mask_id);
    e.current.epoch = mask_.epoch;
    e.k_items = kItems;
    e.d = 6;
    e.last_round_id = last_round;
    return e;
  }

  MessageStatus open(const Bytes& m, const MessageExpect& e,
                     p2b::vfl::MaskedMessage* out = nullptr) const {
    p2b::vfl::MaskedMessage scratch;
    return p2b::vfl::open_masked_message(m.data(), m.size(), ap_.sk, party_.pk, e,
                                         out != nullptr ? out : &scratch);
  }

  // The documented nonce, "P2BV" | u32le party | u64le round | 0x01 | 0 x 7:
  // boxes a plaintext the sealer would refuse to make.
  Bytes boxed(const Bytes& prefix, const Bytes& plain) const {
    uint8_t nonce[crypto_box_NONCEBYTES] = {'P', '2', 'B', 'V'};
    std::memcpy(nonce + 4, prefix.data() + 4, 12);
    nonce[16] = 0x01;
    Bytes out(prefix.begin(), prefix.begin() + 16);
    out.resize(16 + crypto_box_MACBYTES + plain.size());
    EXPECT_EQ(
        crypto_box_easy(out.data() + 16, plain.data(), plain.size(), nonce, ap_.pk, party_.sk), 0);
    return out;
  }

  Bytes plaintext_of(const Bytes& m) const {
    uint8_t nonce[crypto_box_NONCEBYTES] = {'P', '2', 'B', 'V'};
    std::memcpy(nonce + 4, m.data() + 4, 12);
    nonce[16] = 0x01;
    Bytes plain(m.size() - 16 - crypto_box_MACBYTES);
    EXPECT_EQ(
        crypto_box_open_easy(plain.data(), m.data() + 16, m.size() - 16, nonce, party_.pk, ap_.sk),
        0);
    return plain;
  }

  static constexpr uint32_t kItems = 3;
  Mask mask_;
  std::vector<double> values_;
  BoxPair party_;
  BoxPair ap_;
};

TEST_F(VflMessage, RoundTripKeepsEveryFieldAndValue) {
  const Bytes m = sealed(41);
  p2b::vfl::MaskedMessage got;
  ASSERT_EQ(open(m, expect(40), &got), MessageStatus::ok);
  const MaskedHeader want = header(41);
  EXPECT_EQ(got.header.party_index, 2U);
  EXPECT_EQ(got.header.round_id, 41U);
  EXPECT_EQ(got.header.epoch, want.epoch);
  EXPECT_EQ(got.header.k_items, kItems);
  EXPECT_EQ(got.header.d, 6U);
  EXPECT_EQ(std::memcmp(got.header.mask_id, want.mask_id, sizeof want.mask_id), 0);
  EXPECT_EQ(std::memcmp(got.header.user_token, want.user_token, sizeof want.user_token), 0);
  ASSERT_EQ(got.values.size(), values_.size());
  EXPECT_EQ(std::memcmp(got.values.data(), values_.data(), values_.size() * sizeof(double)), 0);
}

// Precomputed shared keys (pinned peers) give the same boxes: a message
// sealed with the party's key opens with the active party's plain keys, and
// the other way round; another peer's shared key does not open it.
TEST_F(VflMessage, PrecomputedSharedKeysInteroperateWithPlainKeys) {
  p2b::vfl::BoxKey party_side;
  p2b::vfl::BoxKey ap_side;
  ASSERT_TRUE(p2b::vfl::box_key(party_.sk, ap_.pk, &party_side));
  ASSERT_TRUE(p2b::vfl::box_key(ap_.sk, party_.pk, &ap_side));
  Bytes with_key;
  std::string err;
  ASSERT_TRUE(
      p2b::vfl::seal_masked_message(header(41), values_.data(), party_side, &with_key, &err));
  EXPECT_EQ(with_key, sealed(41)) << "the nonce is derived, so the same bytes";
  p2b::vfl::MaskedMessage got;
  ASSERT_EQ(open(with_key, expect(40), &got), MessageStatus::ok);
  ASSERT_EQ(
      p2b::vfl::open_masked_message(with_key.data(), with_key.size(), ap_side, expect(40), &got),
      MessageStatus::ok);
  EXPECT_EQ(std::memcmp(got.values.data(), values_.data(), values_.size() * sizeof(double)), 0);
  p2b::vfl::BoxKey wrong;
  ASSERT_TRUE(p2b::vfl::box_key(ap_.sk, ap_.pk, &wrong));
  EXPECT_EQ(
      p2b::vfl::open_masked_message(with_key.data(), with_key.size(), wrong, expect(40), &got),
      MessageStatus::not_openable);
}

TEST_F(VflMessage, EncodedSizeIsTheFormula) {
  EXPECT_EQ(sealed(1).size(), 100U + 8 * kItems * 6);
  std::mt19937_64 rng(3);
  for (const uint32_t k : {1U, 10U, 37U}) {
    for (const uint32_t d : {2U, 100U, 300U}) {
      MaskedHeader h = header(1);
      h.k_items = k;
      h.d = d;
      const std::vector<double> v(static_cast<std::size_t>(k) * d, 0.25);
      Bytes out;
      std::string err;
      ASSERT_TRUE(p2b::vfl::seal_masked_message(h, v.data(), party_.sk, ap_.pk, &out, &err));
      EXPECT_EQ(out.size(), 16 + 16 + 68 + 8 * static_cast<std::size_t>(k) * d);
      EXPECT_EQ(out.size(), p2b::vfl::masked_message_bytes(k, d));
    }
  }
  EXPECT_EQ(p2b::vfl::masked_message_bytes(10, 100), 8100U);  // the paper's d = 100, K = 10
}

TEST_F(VflMessage, EveryBitFlipIsRefused) {
  const Bytes good = sealed(41);
  ASSERT_EQ(open(good, expect(40)), MessageStatus::ok);
  for (std::size_t bit = 0; bit < good.size() * 8; ++bit) {
    Bytes m = good;
    m[bit / 8] ^= static_cast<uint8_t>(1U << (bit % 8));
    ASSERT_NE(open(m, expect(40)), MessageStatus::ok) << "bit " << bit;
  }
}

TEST_F(VflMessage, AReplayIsRefused) {
  const Bytes m = sealed(41);
  ASSERT_EQ(open(m, expect(40)), MessageStatus::ok);
  EXPECT_EQ(open(m, expect(41)), MessageStatus::replayed);
}

TEST_F(VflMessage, AnOlderRoundAfterANewerIsRefused) {
  const Bytes older = sealed(41);
  const Bytes newer = sealed(42);
  ASSERT_EQ(open(newer, expect(40)), MessageStatus::ok);
  EXPECT_EQ(open(older, expect(42)), MessageStatus::replayed);
}

TEST_F(VflMessage, ARoundChangedInTransitDoesNotOpen) {
  Bytes m = sealed(41);
  m[8] = 50;  // round 50 in the clear prefix: another nonce
  EXPECT_EQ(open(m, expect(40)), MessageStatus::not_openable);
}

TEST_F(VflMessage, AStaleMaskIsRefused) {
  MessageExpect e = expect(0);
  e.current.epoch += 1;  // the mask rotated since the party masked
  EXPECT_EQ(open(sealed(1), e), MessageStatus::stale_mask);
  e = expect(0);
  e.current.mask_id[0] ^= 1;
  EXPECT_EQ(open(sealed(1), e), MessageStatus::stale_mask);
}

TEST_F(VflMessage, AnotherShapeIsRefused) {
  MessageExpect e = expect(0);
  e.k_items = kItems + 1;
  EXPECT_EQ(open(sealed(1), e), MessageStatus::wrong_shape);
  e = expect(0);
  e.d = 7;
  EXPECT_EQ(open(sealed(1), e), MessageStatus::wrong_shape);
}

TEST_F(VflMessage, AnotherPartyOrKeyIsRefused) {
  MessageExpect e = expect(0);
  e.party_index = 3;
  EXPECT_EQ(open(sealed(1), e), MessageStatus::wrong_party);
  const BoxPair other;
  p2b::vfl::MaskedMessage out;
  const Bytes m = sealed(1);
  EXPECT_EQ(p2b::vfl::open_masked_message(m.data(), m.size(), ap_.sk, other.pk, expect(0), &out),
            MessageStatus::not_openable);
}

TEST_F(VflMessage, NonFiniteValuesAreRefusedOnBothSides) {
  std::vector<double> bad = values_;
  bad[4] = std::numeric_limits<double>::infinity();
  Bytes out;
  std::string err;
  EXPECT_FALSE(p2b::vfl::seal_masked_message(header(1), bad.data(), party_.sk, ap_.pk, &out, &err));
  const Bytes m = sealed(1);
  Bytes plain = plaintext_of(m);
  std::memset(plain.data() + 68 + 8 * 4, 0xFF, 8);  // value 4: a NaN
  EXPECT_EQ(open(boxed(m, plain), expect(0)), MessageStatus::non_finite);
}

TEST_F(VflMessage, AnInnerHeaderThatContradictsThePrefixIsRefused) {
  const Bytes m = sealed(1);
  Bytes plain = plaintext_of(m);
  plain[36] = 9;  // the boxed round says 9, the prefix (and nonce) 1
  EXPECT_EQ(open(boxed(m, plain), expect(0)), MessageStatus::malformed);
  plain = plaintext_of(m);
  plain.pop_back();
  EXPECT_EQ(open(boxed(m, plain), expect(0)), MessageStatus::bad_length);
  EXPECT_EQ(open(Bytes(m.begin(), m.begin() + 99), expect(0)), MessageStatus::bad_length);
}

TEST_F(VflMessage, RoundZeroIsNeverSealed) {
  Bytes out;
  std::string err;
  EXPECT_FALSE(
      p2b::vfl::seal_masked_message(header(0), values_.data(), party_.sk, ap_.pk, &out, &err));
}

// ---- masking by the parties -------------------------------------------------

std::vector<double> gaussians(std::size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  std::vector<double> v(n);
  for (double& x : v) x = g(rng);
  return v;
}

// Every party masks its own columns of the K' x d contexts; the active party
// sums. Returns K' x d row-major.
std::vector<double> masked_sum(const Mask& m, const p2b::vfl::Partition& part,
                               const std::vector<double>& x, uint32_t k) {
  const uint32_t d = m.d;
  std::vector<double> sum(static_cast<std::size_t>(k) * d, 0.0);
  for (uint32_t j = 0; j < part.size(); ++j) {
    p2b::vfl::MaskBlock b;
    EXPECT_TRUE(p2b::vfl::block(m, part, j, &b));
    std::vector<double> xj(static_cast<std::size_t>(k) * b.d_j);
    for (uint32_t i = 0; i < k; ++i) {
      for (uint32_t c = 0; c < b.d_j; ++c) xj[i * b.d_j + c] = x[i * d + b.col_offset + c];
    }
    std::vector<double> part_out(sum.size());
    EXPECT_TRUE(p2b::vfl::mask_block(b, xj.data(), k, part_out.data()));
    for (std::size_t n = 0; n < sum.size(); ++n) sum[n] += part_out[n];
  }
  return sum;
}

TEST(VflPartyMask, PartsSumToQxForUnevenPartitions) {
  constexpr uint32_t k = 4;
  const std::vector<p2b::vfl::Partition> partitions = {{3, 7},   {1, 4, 5},    {2, 1, 3, 3, 1},
                                                       {37, 63}, {10, 50, 40}, {1, 2, 30, 7, 60}};
  for (const p2b::vfl::Partition& part : partitions) {
    uint32_t d = 0;
    for (const uint32_t dj : part) d += dj;
    const Mask m = drawn(d, static_cast<uint8_t>(40 + part.size() + d));
    const std::vector<double> x = gaussians(static_cast<std::size_t>(k) * d, d);
    const std::vector<double> sum = masked_sum(m, part, x, k);
    const Eigen::Map<const Eigen::MatrixXd> xs(x.data(), d, k);
    const Eigen::MatrixXd want = as_matrix(m) * xs;
    const Eigen::Map<const Eigen::MatrixXd> got(sum.data(), d, k);
    for (uint32_t i = 0; i < k; ++i) {
      EXPECT_LE((got.col(i) - want.col(i)).norm(), 1e-12 * want.col(i).norm())
          << "M=" << part.size() << " d=" << d << " item " << i;
    }
  }
}

TEST(VflPartyMask, RefusesAnInconsistentBlock) {
  p2b::vfl::MaskBlock b;
  ASSERT_TRUE(p2b::vfl::block(drawn(6, 50), {2, 4}, 1, &b));
  std::vector<double> x(8, 1.0);
  std::vector<double> out(12, -1.0);
  b.q.pop_back();
  EXPECT_FALSE(p2b::vfl::mask_block(b, x.data(), 2, out.data()));
  EXPECT_EQ(out[0], -1.0);
}

// ---- honest leak tests: what the active party learns anyway ----------------
// These document weaknesses of O3M (docs/formats.md); they do not defend.

// d known (x, Qx) pairs, e.g. test accounts the active party controls, give Q
// by one linear solve, and with it every past and future context.
TEST(VflLeak, KnownPlaintextsRevealQAndUnmaskTheRest) {
  constexpr uint32_t d = 20;
  const p2b::vfl::Partition part{5, 8, 7};
  const Mask m = drawn(d, 60);
  const std::vector<double> known = gaussians(d * d, 61);  // d contexts, one per row
  const std::vector<double> masked = masked_sum(m, part, known, d);
  const Eigen::Map<const Eigen::MatrixXd> x(known.data(), d, d);  // columns are contexts
  const Eigen::Map<const Eigen::MatrixXd> y(masked.data(), d, d);
  // Y = Q X, so Q^T = X^-T Y^T.
  const Eigen::MatrixXd q_hat = x.transpose().partialPivLu().solve(y.transpose()).transpose();
  EXPECT_LE((q_hat - as_matrix(m)).cwiseAbs().maxCoeff(), 1e-9);
  const std::vector<double> held_out = gaussians(d, 62);
  const std::vector<double> held_masked = masked_sum(m, part, held_out, 1);
  const Eigen::VectorXd unmasked =
      q_hat.transpose() * Eigen::Map<const Eigen::VectorXd>(held_masked.data(), d);
  EXPECT_LE(
      (unmasked - Eigen::Map<const Eigen::VectorXd>(held_out.data(), d)).cwiseAbs().maxCoeff(),
      1e-9);
}

// With two parties the active party subtracts its own Q^1 x^1 and holds
// Q^2 x^2, whose inner products are the passive party's: Q^2 has orthonormal
// columns. The passive block is known up to one rotation, for every user.
TEST(VflLeak, TwoPartiesRevealThePassiveGramMatrix) {
  constexpr uint32_t d = 12;
  constexpr uint32_t users = 30;
  const p2b::vfl::Partition part{5, 7};
  const Mask m = drawn(d, 63);
  const std::vector<double> x = gaussians(static_cast<std::size_t>(users) * d, 64);
  const std::vector<double> masked = masked_sum(m, part, x, users);
  p2b::vfl::MaskBlock own;
  ASSERT_TRUE(p2b::vfl::block(m, part, 0, &own));  // what the active party holds
  const Eigen::Map<const Eigen::MatrixXd> q1(own.q.data(), d, 5);
  const Eigen::Map<const Eigen::MatrixXd> all(x.data(), d, users);
  const Eigen::MatrixXd x1 = all.topRows(5);
  const Eigen::MatrixXd x2 = all.bottomRows(7);  // the passive party's secret
  const Eigen::MatrixXd rest = Eigen::Map<const Eigen::MatrixXd>(masked.data(), d, users) - q1 * x1;
  const Eigen::MatrixXd leaked_gram = rest.transpose() * rest;
  const Eigen::MatrixXd true_gram = x2.transpose() * x2;
  EXPECT_LE((leaked_gram - true_gram).cwiseAbs().maxCoeff(), 1e-9);
}

// A one-hot block masks to a column of Q^j: as many distinct messages as
// categories, so category equality and frequencies are in the clear.
TEST(VflLeak, AOneHotBlockGivesAtMostDjDistinctVectors) {
  constexpr uint32_t d_j = 4;
  constexpr uint32_t users = 500;
  p2b::vfl::MaskBlock b;
  ASSERT_TRUE(p2b::vfl::block(drawn(10, 65), {6, d_j}, 1, &b));
  std::mt19937_64 rng(66);
  std::set<std::vector<double>> seen;
  std::vector<double> x(d_j);
  std::vector<double> out(10);
  for (uint32_t u = 0; u < users; ++u) {
    std::fill(x.begin(), x.end(), 0.0);
    x[rng() % d_j] = 1.0;
    ASSERT_TRUE(p2b::vfl::mask_block(b, x.data(), 1, out.data()));
    seen.insert(out);
  }
  EXPECT_LE(seen.size(), d_j);
  EXPECT_EQ(seen.size(), d_j);  // and every category showed up
}

}  // namespace
