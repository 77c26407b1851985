// One seed, one action sequence, on every platform: the golden digests below
// were recorded on x86-64 (float and double builds) and must hold unchanged
// under qemu on aarch64 and armhf. A change here means decisions are no
// longer portable. The saved-state and score digests were re-recorded once
// for issue #30's kernel (reciprocal diagonals, one division per column in
// the rank-1 update, theta kept whitened, arms scored side by side); the
// action digests did not move.
#include <gtest/gtest.h>

#include <cstring>

#include "p2b/config.hpp"
#include "test_support.hpp"

namespace {

uint64_t fnv(uint64_t h, uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    h ^= (v >> (8 * i)) & 0xFF;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// The scenarios' fixed inputs, integer arithmetic and exactly representable
// floats only, so identical on every platform: a 12-code codebook of d = 6
// (`mul` varies it) and contexts from a 64-bit LCG.
constexpr uint32_t kScenarioDim = 6;

std::vector<float> scenario_codebook(uint32_t mul) {
  std::vector<float> codebook;
  for (uint32_t c = 0; c < 12; ++c) {
    for (uint32_t i = 0; i < kScenarioDim; ++i) {
      codebook.push_back(static_cast<float>((c * mul + i * 3) % 11) / 16.0F);
    }
  }
  return codebook;
}

void next_context(uint64_t* lcg, float* x) {
  for (uint32_t i = 0; i < kScenarioDim; ++i) {
    *lcg = *lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    x[i] = static_cast<float>((*lcg >> 33) % 64) / 8.0F;
  }
}

// Runs a fixed scenario through decide/reward/poll and digests every action,
// code and report. The environment uses only integer arithmetic and exactly
// representable floats, so it is identical everywhere.
uint64_t scenario_digest(uint32_t policy) {
  const uint32_t d = kScenarioDim;
  p2b_config cfg = p2b_test::base_config(d, 5, 0, 2024);
  cfg.policy = policy;
  cfg.ts_scale = 0.3;
  const std::vector<float> codebook = scenario_codebook(7);
  cfg.centroids = codebook.data();
  cfg.n_codes = 12;
  auto t = p2b_test::make_agent(cfg);
  uint64_t h = 0xcbf29ce484222325ULL;
  uint64_t lcg = 12345;
  for (int step = 0; step < 4000; ++step) {
    float x[d];
    next_context(&lcg, x);
    uint32_t a = 0;
    uint64_t id = 0;
    uint32_t code = 0;
    EXPECT_EQ(p2b_agent_decide(t.agent, x, d, &a, &id), P2B_OK);
    EXPECT_EQ(p2b_agent_encode(t.agent, x, d, &code), P2B_OK);
    const float r = ((lcg >> 20) % 5 == a) ? 1.0F : 0.0F;
    EXPECT_EQ(p2b_agent_reward(t.agent, id, r), P2B_OK);
    h = fnv(h, a);
    h = fnv(h, code);
    p2b_tuple rep;
    while (p2b_agent_poll_tuple(t.agent, &rep) == P2B_OK) {
      h = fnv(h, 0xFFFF0000ULL | rep.code);
      h = fnv(h, rep.action);
    }
  }
  return h;
}

// One golden per scalar type: float and double builds take different paths.
uint64_t golden(uint64_t for_float, uint64_t for_double) {
  return sizeof(p2b::real) == sizeof(float) ? for_float : for_double;
}

TEST(Determinism, LinUcbGoldenDigestHoldsOnEveryPlatform) {
  EXPECT_EQ(scenario_digest(P2B_POLICY_LINUCB),
            golden(16051424871665607757ULL, 15947204153389817093ULL));
}

TEST(Determinism, LinTsGoldenDigestHoldsOnEveryPlatform) {
  EXPECT_EQ(scenario_digest(P2B_POLICY_LINTS),
            golden(8163581952555675154ULL, 4603064527202970830ULL));
}

// The bits of every score p2b_agent_scores reports along a scenario: the
// action digests above move only when a score crosses another, so this is
// what pins the scoring kernel (arm_lanes.hpp) itself, including the spare
// lanes of its last group (5 arms in groups of 4), on every platform.
uint64_t scores_digest() {
  const uint32_t d = kScenarioDim;
  constexpr uint32_t kArms = 5;
  p2b_config cfg = p2b_test::base_config(d, kArms, 0, 31);
  const std::vector<float> codebook = scenario_codebook(3);
  cfg.centroids = codebook.data();
  cfg.n_codes = 12;
  auto t = p2b_test::make_agent(cfg);
  uint64_t h = 0xcbf29ce484222325ULL;
  uint64_t lcg = 4242;
  for (int step = 0; step < 600; ++step) {
    float x[d];
    next_context(&lcg, x);
    float mean[kArms];
    float width[kArms];
    EXPECT_EQ(p2b_agent_scores(t.agent, x, d, mean, width, kArms), P2B_OK);
    for (uint32_t a = 0; a < kArms; ++a) {
      uint32_t bits[2];
      std::memcpy(&bits[0], &mean[a], sizeof bits[0]);
      std::memcpy(&bits[1], &width[a], sizeof bits[1]);
      h = fnv(h, bits[0]);
      h = fnv(h, bits[1]);
    }
    uint32_t a = 0;
    uint64_t id = 0;
    EXPECT_EQ(p2b_agent_decide(t.agent, x, d, &a, &id), P2B_OK);
    EXPECT_EQ(p2b_agent_reward(t.agent, id, ((lcg >> 17) % 3 == a) ? 1.0F : 0.0F), P2B_OK);
  }
  return h;
}

TEST(Determinism, ScoreBitsGoldenDigestHoldsOnEveryPlatform) {
  EXPECT_EQ(scores_digest(), golden(1636940956657027437ULL, 14008458725302376763ULL));
}

// The saved state after 1,237 steps (mid-window) with the last three
// decisions left unrewarded: pending slots, a part-filled window and the
// outbox, byte for byte. Codes are computed lazily (only for a released tuple,
// and for pending slots and window entries when saving), so this golden,
// recorded when every decision was encoded eagerly, proves the saved bytes
// did not change with it.
uint64_t saved_state_digest(uint32_t policy) {
  const uint32_t d = kScenarioDim;
  p2b_config cfg = p2b_test::base_config(d, 5, 0, 77);
  cfg.policy = policy;
  cfg.ts_scale = 0.3;
  cfg.window = 7;
  cfg.participation = 0.8;
  const std::vector<float> codebook = scenario_codebook(5);
  cfg.centroids = codebook.data();
  cfg.n_codes = 12;
  auto t = p2b_test::make_agent(cfg);
  uint64_t lcg = 99;
  p2b_tuple rep;
  for (int step = 0; step < 1237; ++step) {
    float x[d];
    next_context(&lcg, x);
    uint32_t a = 0;
    uint64_t id = 0;
    EXPECT_EQ(p2b_agent_decide(t.agent, x, d, &a, &id), P2B_OK);
    if (step < 1234) {
      EXPECT_EQ(p2b_agent_reward(t.agent, id, ((lcg >> 20) % 3 == a) ? 1.0F : 0.0F), P2B_OK);
    }
    // Leave the outbox part-full: poll only every 50 steps.
    while (step % 50 == 0 && p2b_agent_poll_tuple(t.agent, &rep) == P2B_OK) {
    }
  }
  // The digest skips the header, whose keys are fresh per test agent, and
  // the trailing MAC: it covers the arms, the pending slots, the window and
  // the outbox. Layout: "P2BS", a varint header length, the header, ..., MAC.
  const std::vector<uint8_t> blob = p2b_test::saved(t.agent);
  std::size_t at = 4;
  std::size_t header_len = 0;
  for (int shift = 0;; shift += 7) {
    const uint8_t byte = blob.at(at++);
    header_len |= static_cast<std::size_t>(byte & 0x7FU) << shift;
    if ((byte & 0x80U) == 0) break;
  }
  at += header_len;
  uint64_t h = 0xcbf29ce484222325ULL;
  for (std::size_t i = at; i + 32 < blob.size(); ++i) h = fnv(h, blob[i]);
  return h;
}

TEST(Determinism, SavedStateGoldenDigestHoldsOnEveryPlatform) {
  EXPECT_EQ(saved_state_digest(P2B_POLICY_LINUCB),
            golden(8311430887137216559ULL, 4564306194839728193ULL));
  EXPECT_EQ(saved_state_digest(P2B_POLICY_LINTS),
            golden(4929406914398633583ULL, 8169651610896718703ULL));
}

}  // namespace
