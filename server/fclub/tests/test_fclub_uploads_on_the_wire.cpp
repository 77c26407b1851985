// What a private local server sends is what the design says and nothing
// more (docs/fclub.md, "Privacy"): every upload of a run, sealed and opened
// as p2b-fclub-local and p2b-fclub-global do, decodes to exactly its
// cluster's raw sums since the previous upload plus the tree's noise
// increment (or, at a phase start, the cluster's whole raw sums plus one
// node), with no field that names a user.
#include <gtest/gtest.h>
#include <sodium.h>

#include <random>
#include <vector>

#include "fclub/fclub_services.hpp"
#include "fclub/local_server.hpp"
#include "fclub/tree_privatizer.hpp"
#include "fclub/wire/fclub_wire.hpp"

namespace p2b::fclub {
namespace {

constexpr uint32_t kDim = 4;
constexpr uint32_t kUsers = 5;
constexpr uint64_t kPhaseStartTree = uint64_t{1} << 63;  // as local_server.cpp keys it

Eigen::VectorXd item(std::mt19937_64& rng) {
  std::normal_distribution<double> n;
  Eigen::VectorXd x(kDim);
  for (uint32_t i = 0; i + 1 < kDim; ++i) x(i) = n(rng);
  x.head(kDim - 1) /= x.head(kDim - 1).norm() * std::sqrt(2.0);
  x(kDim - 1) = 1.0 / std::sqrt(2.0);
  return x;
}

struct Keys {
  uint8_t box_pk[32] = {}, box_sk[32] = {}, sign_pk[32] = {}, sign_sk[64] = {};
  Keys() {
    crypto_box_keypair(box_pk, box_sk);
    crypto_sign_keypair(sign_pk, sign_sk);
  }
};

TEST(FclubUploadsOnTheWire, EveryUploadIsRawSumsPlusTheDocumentedNoiseAndNothingElse) {
  ASSERT_GE(sodium_init(), 0);
  FclubConfig cfg;
  cfg.dim = kDim;
  cfg.private_uploads = true;
  cfg.clustering = Clustering::per_server;
  cfg.upload_ratio = 1.05;
  TreeSeed noise_key{};
  noise_key.fill(0x5a);
  LocalServer local(cfg, 3, kUsers, noise_key);
  const Keys global, sender;
  OpenExpect expect;
  ASSERT_TRUE(deployment_fingerprint(global.box_pk, expect.deployment_fp));
  expect.dim = kDim;
  VerifyKey vk{};
  std::copy(std::begin(sender.sign_pk), std::end(sender.sign_pk), vk.begin());
  const SignerLookup signers = pinned_signers({vk});
  const double sigma = plan_cdp(cfg).sigma;

  std::mt19937_64 rng(21);
  Stats since_upload = Stats::zero(kDim);  // one cluster: everything since its last upload
  uint32_t phase = 0;
  uint32_t opened = 0, phase_starts = 0, increments = 0;
  // `noise.count` is the count the upload must carry: noisy at a phase
  // start, none in an increment (a raw count would leak).
  auto check = [&](const StatsUpload& up, const Stats& raw, const Stats& noise) {
    Upload w;
    std::memcpy(w.deployment_fp, expect.deployment_fp, sizeof w.deployment_fp);
    w.server_id = up.server;
    w.phase = up.phase;
    w.seq = up.seq;
    w.local_cluster = up.local_cluster;
    w.member_count = up.members;
    w.stats = to_wire_stats(up.stats, kDim);
    w.epsilon_spent = up.epsilon_spent;
    w.delta = cfg.delta;
    std::vector<uint8_t> wire;
    std::string err;
    ASSERT_TRUE(seal_upload(w, sender.sign_sk, global.box_pk, &wire, &err)) << err;
    ASSERT_EQ(wire.size(), upload_wire_size(kDim));  // one length for every upload
    Upload got;
    ASSERT_EQ(open_upload(wire.data(), wire.size(), global.box_pk, global.box_sk, signers, expect,
                          &got, &err),
              OpenStatus::ok)
        << err;
    ++opened;
    // The documented fields, and they say only this much.
    EXPECT_EQ(got.server_id, 3U);
    EXPECT_EQ(got.phase, phase);
    EXPECT_EQ(got.member_count, 0U);  // cluster sizes are membership: not sent
    // Nothing released yet (phase 1's empty upload) has cost nothing.
    if (raw.count > 0) {
      EXPECT_GT(got.epsilon_spent, 0.0);
    }
    EXPECT_LE(got.epsilon_spent, cfg.epsilon + 1e-9);
    const Stats s = from_wire_stats(got.stats);
    EXPECT_EQ(s.count, noise.count);  // counts only through the mechanism (docs/fclub.md)
    const Eigen::MatrixXd gram_noise = s.gram - raw.gram;
    const Eigen::VectorXd moment_noise = s.moment - raw.moment;
    EXPECT_LT((gram_noise - noise.gram).cwiseAbs().maxCoeff(), 1e-9);
    EXPECT_LT((moment_noise - noise.moment).cwiseAbs().maxCoeff(), 1e-9);
    // And the noise is there: sigma-sized, not zero.
    EXPECT_GT(gram_noise.cwiseAbs().maxCoeff(), sigma / 100.0);
  };

  for (uint64_t t = 1; t <= 1200; ++t) {
    if (const uint32_t s =
            (((t + 1) & t) == 0) ? static_cast<uint32_t>(__builtin_ctzll(t + 1)) : 0) {
      phase = s;
      const std::vector<StatsUpload> starts = local.start_phase(s);
      ASSERT_EQ(starts.size(), 1U);
      Stats raw = Stats::zero(kDim);
      for (uint32_t u = 0; u < kUsers; ++u) raw.add(local.user_stats(u));
      Stats node = Stats::zero(kDim);
      const TreePrivatizer start(kDim, sigma, derive_tree_seed(noise_key, s, kPhaseStartTree | 0));
      start.prefix_noise(1, &node.gram, &node.moment);
      node.count = noisy_count(raw.count, start.prefix_count_noise(1));
      EXPECT_EQ(starts[0].seq, 0U);
      check(starts[0], raw, node);
      ++phase_starts;
      since_upload = Stats::zero(kDim);  // the phase-start upload carries everything
    }
    const Eigen::VectorXd x = item(rng);
    const double y = static_cast<double>(rng() % 2);
    since_upload.add_interaction(x, y);
    StatsUpload up;
    if (!local.observe(static_cast<uint32_t>(rng() % kUsers), x, y, &up)) continue;
    Stats now = Stats::zero(kDim), before = Stats::zero(kDim);
    const TreePrivatizer tree(kDim, sigma, derive_tree_seed(noise_key, phase, up.local_cluster));
    tree.prefix_noise(up.seq, &now.gram, &now.moment);
    tree.prefix_noise(up.seq - 1, &before.gram, &before.moment);
    now.gram -= before.gram;
    now.moment -= before.moment;
    check(up, since_upload, now);
    ++increments;
    since_upload = Stats::zero(kDim);
  }
  EXPECT_EQ(phase_starts, 10U);  // rounds 1, 3, 7, ..., 1023
  EXPECT_GT(increments, 20U);
  EXPECT_EQ(opened, phase_starts + increments);
}

}  // namespace
}  // namespace p2b::fclub
