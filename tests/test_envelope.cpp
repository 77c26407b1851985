// Sealed reports: what the device seals, the shuffler and the analyzer open
// exactly; any tampering, wrong key or malformed plaintext is refused; and
// every envelope has one length.
#include <gtest/gtest.h>
#include <pb_encode.h>

#include <array>

#include "p2b.pb.h"
#include "p2b/envelope.hpp"
#include "test_support.hpp"
#include "wire/envelope_open.hpp"

namespace {

using p2b::server::BoxKey;
using p2b::server::OpenStatus;

struct Keyring {
  BoxKey shuffler{}, analyzer{};
  Keyring() {
    const auto& k = p2b_test::test_keys();
    p2b::server::make_box_key(k.shuffler_pk, k.shuffler_sk, &shuffler);
    p2b::server::make_box_key(k.analyzer_pk, k.analyzer_sk, &analyzer);
  }
};

const p2b::CryptoPort kPort = p2b_test::sodium_port();

// Seals with the core's own sealing code and the test deployment's keys.
std::array<uint8_t, p2b::kEnvelopeBytes> seal(const Keyring& ring, const p2b::TupleToSeal& t) {
  const p2b::SealingKeys keys{ring.shuffler.pk, ring.shuffler.fp, ring.analyzer.pk,
                              ring.analyzer.fp};
  std::array<uint8_t, p2b::kEnvelopeBytes> env{};
  EXPECT_EQ(p2b::seal_envelope(kPort, keys, t, env.data()), p2b::Status::ok);
  return env;
}

// Opens both layers; the status of the first layer that fails, else ok.
OpenStatus open_both(const Keyring& ring, const uint8_t* env, size_t len,
                     p2b::server::InnerOpened* out, uint32_t* crowd = nullptr) {
  p2b::server::OuterOpened outer{};
  const OpenStatus st = p2b::server::open_outer(env, len, &ring.shuffler, 1, &outer);
  if (st != OpenStatus::ok) return st;
  if (crowd != nullptr) *crowd = outer.crowd_id;
  return p2b::server::open_inner(outer.inner, sizeof outer.inner, &ring.analyzer, 1, out);
}

TEST(Envelope, DeviceSealsAndTheServiceOpensTheSameTuples) {
  const Keyring ring;
  // Two identical seeded agents: one hands out plaintext, the other envelopes.
  p2b_config cfg = p2b_test::base_config(6, 5, 32, 17);
  cfg.window = 2;
  auto plain = p2b_test::make_agent(cfg);
  auto sealed = p2b_test::make_agent(cfg);
  std::mt19937_64 env(5);
  int compared = 0;
  for (int i = 0; i < 2000; ++i) {
    const std::vector<float> x = p2b_test::simplex_point(env, 6);
    for (p2b_agent* ag : {plain.agent, sealed.agent}) {
      uint32_t a = 0;
      uint64_t id = 0;
      ASSERT_EQ(p2b_agent_decide(ag, x.data(), 6, &a, &id), P2B_OK);
      ASSERT_EQ(p2b_agent_reward(ag, id, (i % 3) ? 1.0F : 0.25F), P2B_OK);
    }
    p2b_tuple want;
    if (p2b_agent_poll_tuple(plain.agent, &want) != P2B_OK) continue;
    uint8_t bytes[P2B_ENVELOPE_BYTES + 10];
    size_t len = 0;
    ASSERT_EQ(p2b_agent_poll_envelope(sealed.agent, bytes, sizeof bytes, &len), P2B_OK);
    ASSERT_EQ(len, static_cast<size_t>(P2B_ENVELOPE_BYTES));
    p2b::server::InnerOpened got{};
    uint32_t crowd = 0;
    ASSERT_EQ(open_both(ring, bytes, len, &got, &crowd), OpenStatus::ok);
    EXPECT_EQ(crowd, want.code);
    EXPECT_EQ(got.code, want.code);
    EXPECT_EQ(got.action, want.action);
    EXPECT_EQ(got.reward, want.reward);
    EXPECT_EQ(got.model_version, 0U);
    ++compared;
  }
  EXPECT_GT(compared, 300);
  std::printf("[ figure ] envelope size: %d bytes (budget 256); %d round trips compared\n",
              P2B_ENVELOPE_BYTES, compared);
}

TEST(Envelope, EverySingleBitFlipIsRejected) {
  const Keyring ring;
  const auto good = seal(ring, {123, 4, 1.0F, 9});
  p2b::server::InnerOpened out{};
  ASSERT_EQ(open_both(ring, good.data(), good.size(), &out), OpenStatus::ok);
  for (size_t bit = 0; bit < good.size() * 8; ++bit) {
    auto bad = good;
    bad[bit / 8] ^= static_cast<uint8_t>(1U << (bit % 8));
    ASSERT_NE(open_both(ring, bad.data(), bad.size(), &out), OpenStatus::ok) << "bit " << bit;
  }
}

TEST(Envelope, EverySingleBitFlipOfTheInnerLayerIsRejected) {
  const Keyring ring;
  const auto env = seal(ring, {7, 1, 0.0F, 2});
  p2b::server::OuterOpened outer{};
  ASSERT_EQ(p2b::server::open_outer(env.data(), env.size(), &ring.shuffler, 1, &outer),
            OpenStatus::ok);
  p2b::server::InnerOpened out{};
  for (size_t bit = 0; bit < sizeof outer.inner * 8; ++bit) {
    uint8_t bad[p2b::kInnerBytes];
    std::memcpy(bad, outer.inner, sizeof bad);
    bad[bit / 8] ^= static_cast<uint8_t>(1U << (bit % 8));
    ASSERT_NE(p2b::server::open_inner(bad, sizeof bad, &ring.analyzer, 1, &out), OpenStatus::ok)
        << "bit " << bit;
  }
}

TEST(Envelope, WrongKeyFailsAndUnknownFingerprintIsToldApart) {
  const Keyring ring;
  const auto env = seal(ring, {1, 2, 1.0F, 3});
  p2b::server::OuterOpened outer{};
  // Another key pair that claims our fingerprint: decryption must fail.
  BoxKey impostor{};
  uint8_t pk[32], sk[32];
  crypto_box_keypair(pk, sk);
  p2b::server::make_box_key(pk, sk, &impostor);
  std::memcpy(impostor.fp, ring.shuffler.fp, sizeof impostor.fp);
  EXPECT_EQ(p2b::server::open_outer(env.data(), env.size(), &impostor, 1, &outer),
            OpenStatus::decrypt_failed);
  // A keyring without the envelope's key at all: named as such.
  p2b::server::make_box_key(pk, sk, &impostor);
  EXPECT_EQ(p2b::server::open_outer(env.data(), env.size(), &impostor, 1, &outer),
            OpenStatus::unknown_key);
  // Key rotation: the right key is found among several.
  const BoxKey both[2] = {impostor, ring.shuffler};
  EXPECT_EQ(p2b::server::open_outer(env.data(), env.size(), both, 2, &outer), OpenStatus::ok);
  // Wrong lengths never reach decryption.
  EXPECT_EQ(p2b::server::open_outer(env.data(), env.size() - 1, both, 2, &outer),
            OpenStatus::wrong_length);
  EXPECT_EQ(p2b::server::open_outer(nullptr, 0, both, 2, &outer), OpenStatus::wrong_length);
}

// Seals an arbitrary outer plaintext properly, to test what the opener does
// with contents the device would never produce.
std::array<uint8_t, p2b::kEnvelopeBytes> seal_outer_plain(const Keyring& ring,
                                                          const uint8_t* plain) {
  std::array<uint8_t, p2b::kEnvelopeBytes> env{};
  std::memcpy(env.data(), ring.shuffler.fp, p2b::kFingerprintBytes);
  EXPECT_EQ(crypto_box_seal(env.data() + p2b::kFingerprintBytes, plain, p2b::kOuterPlainBytes,
                            ring.shuffler.pk),
            0);
  return env;
}

TEST(Envelope, MalformedButAuthenticPlaintextIsRejected) {
  const Keyring ring;
  p2b::server::OuterOpened outer{};
  p2b_v1_Envelope msg = p2b_v1_Envelope_init_zero;
  msg.crowd_id = 5;
  std::memcpy(msg.shuffler_key_fp, ring.shuffler.fp, p2b::kFingerprintBytes);
  uint8_t plain[p2b::kOuterPlainBytes] = {};
  pb_ostream_t os = pb_ostream_from_buffer(plain, sizeof plain);
  ASSERT_TRUE(pb_encode_delimited(&os, p2b_v1_Envelope_fields, &msg));
  auto env = seal_outer_plain(ring, plain);
  ASSERT_EQ(p2b::server::open_outer(env.data(), env.size(), &ring.shuffler, 1, &outer),
            OpenStatus::ok);

  uint8_t dirty[sizeof plain];
  std::memcpy(dirty, plain, sizeof plain);
  dirty[sizeof dirty - 1] = 1;  // non-zero padding
  env = seal_outer_plain(ring, dirty);
  EXPECT_EQ(p2b::server::open_outer(env.data(), env.size(), &ring.shuffler, 1, &outer),
            OpenStatus::malformed);

  msg.shuffler_key_fp[0] ^= 1;  // inner fingerprint disagrees with the key used
  std::memset(plain, 0, sizeof plain);
  os = pb_ostream_from_buffer(plain, sizeof plain);
  ASSERT_TRUE(pb_encode_delimited(&os, p2b_v1_Envelope_fields, &msg));
  env = seal_outer_plain(ring, plain);
  EXPECT_EQ(p2b::server::open_outer(env.data(), env.size(), &ring.shuffler, 1, &outer),
            OpenStatus::malformed);

  std::memset(dirty, 0xFF, sizeof dirty);  // not protobuf at all
  env = seal_outer_plain(ring, dirty);
  EXPECT_EQ(p2b::server::open_outer(env.data(), env.size(), &ring.shuffler, 1, &outer),
            OpenStatus::malformed);
}

TEST(Envelope, LengthIsFixedAcross10000RandomReports) {
  const Keyring ring;
  std::mt19937_64 rng(3);
  p2b::server::InnerOpened out{};
  for (int i = 0; i < 10000; ++i) {
    // Extremes included: varints from 1 to 10 bytes, rewards 0 (omitted) to 1.
    const p2b::TupleToSeal t{i % 7 == 0 ? 0U : static_cast<uint32_t>(rng()),
                             i % 5 == 0 ? 0U : static_cast<uint32_t>(rng()),
                             static_cast<float>(rng() % 1001) / 1000.0F, i % 3 == 0 ? 0U : rng()};
    const auto env = seal(ring, t);
    ASSERT_EQ(env.size(), p2b::kEnvelopeBytes);
    ASSERT_EQ(open_both(ring, env.data(), env.size(), &out), OpenStatus::ok);
    ASSERT_EQ(out.code, t.code);
    ASSERT_EQ(out.action, t.action);
    ASSERT_EQ(out.reward, t.reward);
    ASSERT_EQ(out.model_version, t.model_version);
  }
}

TEST(Envelope, FingerprintsAreBlake2bOfThePublicKeys) {
  auto t = p2b_test::make_agent(p2b_test::base_config(4, 3, 8, 1));
  p2b_fingerprints fp;
  ASSERT_EQ(p2b_agent_fingerprints(t.agent, &fp), P2B_OK);
  const auto& k = p2b_test::test_keys();
  uint8_t want[P2B_FINGERPRINT_BYTES];
  crypto_generichash(want, sizeof want, k.shuffler_pk, sizeof k.shuffler_pk, nullptr, 0);
  EXPECT_EQ(0, std::memcmp(fp.shuffler, want, sizeof want));
  crypto_generichash(want, sizeof want, k.analyzer_pk, sizeof k.analyzer_pk, nullptr, 0);
  EXPECT_EQ(0, std::memcmp(fp.analyzer, want, sizeof want));
  crypto_generichash(want, sizeof want, k.verify_pk, sizeof k.verify_pk, nullptr, 0);
  EXPECT_EQ(0, std::memcmp(fp.analyzer_verify, want, sizeof want));
  uint8_t direct[P2B_FINGERPRINT_BYTES];
  ASSERT_EQ(p2b_key_fingerprint(k.verify_pk, direct), P2B_OK);
  EXPECT_EQ(0, std::memcmp(direct, fp.analyzer_verify, sizeof direct));
}

}  // namespace
