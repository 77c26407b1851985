// The mask side of vertical federation (server/vfl): the orthogonal mask,
// its sealed bundles, the masked messages, the parties' masking, and the
// honest leak tests that document what the active party can learn anyway.
#include <gtest/gtest.h>
#include <sodium.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstring>
#include <vector>

#include "vfl/mask.hpp"

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

}  // namespace
