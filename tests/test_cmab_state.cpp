// Saving and restoring a P-FCB agent: a restored agent goes on exactly as the
// original would have (decisions, shares, the accountant, replay checks);
// the size is the documented function of m and max_peers; every truncation,
// trailing byte, flipped byte and wrong key is refused, and so is a state
// whose values are impossible even under a valid MAC; another configuration
// is a mismatch, not damage; and nothing changes on any refusal.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "cmab_fixture.hpp"
#include "p2b.h"
#include "state_mac.hpp"

namespace {

using cmab_fixture::Agent;
using cmab_fixture::config;
using cmab_fixture::make;
using cmab_fixture::play_round;
using cmab_fixture::poll;

constexpr char kMacLabel[] = "p2b cmab state MAC key v1";

struct Key {
  uint8_t bytes[P2B_STATE_KEY_BYTES] = {};
  explicit Key(uint8_t fill) { std::memset(bytes, fill, sizeof bytes); }
};
const Key kKey(3);

std::vector<uint8_t> saved(const Agent& g, const Key& key = kKey) {
  size_t n = 0;
  EXPECT_EQ(p2b_cmab_save_size(g.a, &n), P2B_OK);
  std::vector<uint8_t> out(n);
  size_t written = 0;
  EXPECT_EQ(p2b_cmab_save(g.a, key.bytes, out.data(), out.size(), &written), P2B_OK);
  EXPECT_EQ(written, n);
  return out;
}

p2b_status restore(Agent& g, const std::vector<uint8_t>& state, const Key& key = kKey) {
  return p2b_cmab_restore(g.a, key.bytes, state.data(), state.size());
}

// Everything a caller can see of an agent, for comparing two of them.
struct Observed {
  std::vector<double> seen;
  std::vector<double> quality;
  p2b_cmab_privacy privacy{};
};

Observed observe_agent(const Agent& g, uint32_t m) {
  Observed o;
  o.seen.resize(m);
  o.quality.resize(m);
  EXPECT_EQ(p2b_cmab_estimates(g.a, o.seen.data(), o.quality.data(), m), P2B_OK);
  EXPECT_EQ(p2b_cmab_privacy_spent(g.a, &o.privacy), P2B_OK);
  return o;
}

void expect_same(const Observed& x, const Observed& y) {
  EXPECT_EQ(x.seen, y.seen);
  EXPECT_EQ(x.quality, y.quality);
  EXPECT_EQ(x.privacy.releases, y.privacy.releases);
  EXPECT_EQ(x.privacy.paper_epsilon, y.privacy.paper_epsilon);
  EXPECT_EQ(x.privacy.sequential_mu, y.privacy.sequential_mu);
  EXPECT_EQ(x.privacy.sequential_epsilon, y.privacy.sequential_epsilon);
}

// A configuration that releases early and often, with a peer to learn from.
p2b_cmab_config sharing_config(uint32_t m) {
  p2b_cmab_config c = config(m);
  c.explore_rounds = 4;
  c.window_start = 5;
  c.window_stop = 400;
  c.schedule = P2B_CMAB_SCHEDULE_ALIGNED;
  c.epsilon = 2.0;
  c.omega1 = std::numeric_limits<double>::infinity();
  c.omega2 = 1.0;
  return c;
}

// Decides, observes a seeded share of good units, and hands any share to
// the peer; returns the round's decision.
std::vector<uint32_t> step(Agent& g, Agent& peer, uint32_t m, std::mt19937& gen) {
  std::vector<uint32_t> units(m);
  EXPECT_EQ(p2b_cmab_decide(g.a, units.data(), m), P2B_OK);
  std::vector<uint32_t> good(m);
  for (uint32_t i = 0; i < m; ++i) {
    good[i] = units[i] == 0 ? 0 : static_cast<uint32_t>(gen() % (units[i] + 1));
  }
  EXPECT_EQ(p2b_cmab_observe(g.a, good.data(), m), P2B_OK);
  p2b_status st;
  const std::vector<uint8_t> share = poll(g, &st);
  if (st == P2B_OK) {
    EXPECT_EQ(p2b_cmab_apply_share(peer.a, 0, share.data(), share.size(), nullptr, nullptr),
              P2B_OK);
  }
  return units;
}

// A played agent with a decision pending, a peer's shares applied and its
// own shares drawn: every part of the state is non-trivial.
Agent played(const p2b_cmab_config& c, uint32_t rounds) {
  Agent g = make(c);
  Agent peer = make(c);
  std::mt19937 gen(11);
  for (uint32_t t = 0; t < rounds; ++t) {
    step(peer, g, c.producers, gen);
    step(g, peer, c.producers, gen);
  }
  std::vector<uint32_t> units(c.producers);
  EXPECT_EQ(p2b_cmab_decide(g.a, units.data(), c.producers), P2B_OK);
  return g;
}

TEST(CmabState, RestoredAgentGoesOnExactlyAsTheOriginal) {
  const uint32_t m = 5;
  const p2b_cmab_config c = sharing_config(m);
  Agent original = played(c, 60);  // a decision awaits its observation
  Agent restarted = make(c);
  ASSERT_EQ(restore(restarted, saved(original)), P2B_OK);
  EXPECT_EQ(saved(restarted), saved(original));
  expect_same(observe_agent(restarted, m), observe_agent(original, m));
  ASSERT_GT(observe_agent(original, m).privacy.releases, 3U);

  // The pending decision is observed by both, then both play on with the
  // same outcomes: same decisions, same noisy shares, same spending.
  const std::vector<uint32_t> good(m, 1);
  ASSERT_EQ(p2b_cmab_observe(original.a, good.data(), m), P2B_OK);
  ASSERT_EQ(p2b_cmab_observe(restarted.a, good.data(), m), P2B_OK);
  Agent sink_a = make(c);
  Agent sink_b = make(c);
  std::mt19937 gen_a(5);
  std::mt19937 gen_b(5);
  for (int t = 0; t < 300; ++t) {
    ASSERT_EQ(step(original, sink_a, m, gen_a), step(restarted, sink_b, m, gen_b)) << "round " << t;
  }
  expect_same(observe_agent(restarted, m), observe_agent(original, m));
  expect_same(observe_agent(sink_b, m), observe_agent(sink_a, m));
  EXPECT_EQ(saved(restarted), saved(original));
}

TEST(CmabState, ReplayCountersSurviveARestart) {
  const p2b_cmab_config c = sharing_config(3);
  Agent sender = make(c);
  Agent receiver = make(c);
  std::vector<uint8_t> share;
  for (int t = 0; t < 10 && share.empty(); ++t) {
    play_round(sender, 3);
    p2b_status st;
    share = poll(sender, &st);
  }
  ASSERT_FALSE(share.empty());
  ASSERT_EQ(p2b_cmab_apply_share(receiver.a, 2, share.data(), share.size(), nullptr, nullptr),
            P2B_OK);
  Agent restarted = make(c);
  ASSERT_EQ(restore(restarted, saved(receiver)), P2B_OK);
  EXPECT_EQ(p2b_cmab_apply_share(restarted.a, 2, share.data(), share.size(), nullptr, nullptr),
            P2B_ERR_REPLAYED);
}

TEST(CmabState, TheSizeIsAFunctionOfTheConfigurationAlone) {
  for (const uint32_t m : {1U, 7U, 64U}) {
    for (const uint32_t peers : {1U, 9U}) {
      p2b_cmab_config c = sharing_config(m);
      c.max_peers = peers;
      Agent fresh = make(c);
      size_t n = 0;
      ASSERT_EQ(p2b_cmab_save_size(fresh.a, &n), P2B_OK);
      EXPECT_EQ(n, 296 + 56 * m + 4 * peers);
      EXPECT_EQ(saved(fresh).size(), n);
      for (int t = 0; t < 12; ++t) play_round(fresh, m);
      EXPECT_EQ(saved(fresh).size(), n);
      // One byte short: refused, and not one byte written.
      std::vector<uint8_t> small(n - 1, 0xA5);
      size_t written = 7;
      EXPECT_EQ(p2b_cmab_save(fresh.a, kKey.bytes, small.data(), small.size(), &written),
                P2B_ERR_BUFFER_TOO_SMALL);
      EXPECT_EQ(small, std::vector<uint8_t>(n - 1, 0xA5));
      EXPECT_EQ(written, 7U);
    }
  }
}

TEST(CmabState, EveryTruncationFlipAndWrongKeyIsRefusedAndChangesNothing) {
  const p2b_cmab_config c = sharing_config(3);
  const std::vector<uint8_t> good = saved(played(c, 30));
  Agent target = played(c, 7);
  const auto before = target.bytes();
  for (size_t len = 0; len < good.size(); ++len) {
    // Its own copy of exactly `len` bytes, so ASan sees any read past them.
    const std::unique_ptr<uint8_t[]> cut(new uint8_t[len + 1]);
    std::memcpy(cut.get(), good.data(), len);
    EXPECT_EQ(p2b_cmab_restore(target.a, kKey.bytes, cut.get(), len), P2B_ERR_CORRUPT_STATE)
        << "length " << len;
  }
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  EXPECT_EQ(restore(target, longer), P2B_ERR_CORRUPT_STATE);
  for (size_t i = 0; i < good.size(); ++i) {
    for (const uint8_t bit : {0x01, 0x80}) {
      std::vector<uint8_t> flipped = good;
      flipped[i] ^= bit;
      EXPECT_EQ(restore(target, flipped), P2B_ERR_CORRUPT_STATE) << "byte " << i;
    }
  }
  EXPECT_EQ(restore(target, good, Key(4)), P2B_ERR_CORRUPT_STATE);
  EXPECT_EQ(target.bytes(), before);
  EXPECT_EQ(restore(target, good), P2B_OK);
}

TEST(CmabState, AnotherConfigurationIsAMismatchNotDamage) {
  const p2b_cmab_config c = sharing_config(3);
  const std::vector<uint8_t> state = saved(played(c, 20));
  auto refused_by = [&](p2b_cmab_config other, uint32_t capacity = 10) {
    Agent g = make(other, capacity);
    const auto before = g.bytes();
    const p2b_status st = restore(g, state);
    if (st != P2B_OK) {
      EXPECT_EQ(g.bytes(), before);
    }
    return st;
  };
  p2b_cmab_config other = c;
  other.alpha = 0.5;
  EXPECT_EQ(refused_by(other), P2B_ERR_STATE_MISMATCH);
  other = c;
  other.epsilon = std::numeric_limits<double>::infinity();
  EXPECT_EQ(refused_by(other), P2B_ERR_STATE_MISMATCH);
  other = c;
  other.producers = 4;
  EXPECT_EQ(refused_by(other), P2B_ERR_STATE_MISMATCH);
  other = c;
  other.max_peers = 5;
  EXPECT_EQ(refused_by(other), P2B_ERR_STATE_MISMATCH);
  other = c;
  other.rng_mode = P2B_RNG_SYSTEM;
  EXPECT_EQ(refused_by(other), P2B_ERR_STATE_MISMATCH);
  EXPECT_EQ(refused_by(c, 11), P2B_ERR_STATE_MISMATCH);  // other capacities
  EXPECT_EQ(refused_by(c), P2B_OK);
}

// Offsets of the format's fields (docs/formats.md, "P-FCB agent state").
constexpr size_t kFormatAt = 4;
constexpr size_t kProducersAt = 8;
constexpr size_t kRngDeterministicAt = 136;
constexpr size_t kRngHasSpareAt = 140;
constexpr size_t kRngWordsAt = 144;
constexpr size_t kRoundsAt = 184;
constexpr size_t kTauAt = 192;
constexpr size_t kDecidedAt = 228;
constexpr size_t kShareWaitingAt = 232;
constexpr size_t kReleasesAt = 236;
constexpr size_t kShareReleaseAt = 244;
constexpr size_t kShareEpsilonAt = 256;
constexpr size_t kProducer0At = 264;  // then 56 bytes per producer
constexpr size_t kCostOff = 8, kCapacityOff = 16, kSeenOff = 20, kGoodSeenOff = 28;
constexpr size_t kUnsentOff = 36, kGoodUnsentOff = 44, kDecisionOff = 52;

template <typename T>
void put(std::vector<uint8_t>& s, size_t at, T v) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "fields are 4 or 8 bytes");
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof v);
  for (size_t i = 0; i < sizeof v; ++i) s[at + i] = static_cast<uint8_t>(bits >> (8 * i));
}

template <typename T>
T get(const std::vector<uint8_t>& s, size_t at) {
  uint64_t bits = 0;
  for (size_t i = 0; i < sizeof(T); ++i) bits |= static_cast<uint64_t>(s[at + i]) << (8 * i);
  T v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// The key holder's edit: the bytes re-MACed under the right key.
std::vector<uint8_t> remac(std::vector<uint8_t> s) {
  const size_t body = s.size() - p2b::kStateMacBytes;
  p2b::state_mac(kKey.bytes, kMacLabel, s.data(), body, s.data() + body);
  return s;
}

TEST(CmabState, ImpossibleValuesUnderAValidMacAreRefused) {
  const p2b_cmab_config c = sharing_config(3);
  const std::vector<uint8_t> good = saved(played(c, 40));
  ASSERT_EQ(get<uint32_t>(good, kProducersAt), 3U);
  ASSERT_EQ(get<uint64_t>(good, kRoundsAt), 40U);
  ASSERT_EQ(get<uint32_t>(good, kDecidedAt), 1U);
  ASSERT_GT(get<uint32_t>(good, kReleasesAt), 0U);
  ASSERT_EQ(get<double>(good, kProducer0At + kCostOff), 0.3);
  ASSERT_EQ(get<uint32_t>(good, kProducer0At + kCapacityOff), 10U);

  // The re-MAC alone changes nothing: each refusal below is the value's.
  Agent probe = make(c);
  EXPECT_EQ(restore(probe, remac(good)), P2B_OK);

  Agent target = make(c);
  const auto before = target.bytes();
  auto edited = [&](auto edit) {
    std::vector<uint8_t> s = good;
    edit(s);
    return restore(target, remac(s));
  };
  const size_t p1 = kProducer0At + 56;  // producer 1
  const double nan = std::nan("");
  EXPECT_EQ(edited([](auto& s) { put<uint32_t>(s, kFormatAt, 2); }), P2B_ERR_UNSUPPORTED_VERSION);
  EXPECT_EQ(edited([](auto& s) { put<uint32_t>(s, kProducersAt, 2); }), P2B_ERR_STATE_MISMATCH);
  EXPECT_EQ(edited([](auto& s) { put<uint32_t>(s, kRngDeterministicAt, 0); }),
            P2B_ERR_STATE_MISMATCH);
  EXPECT_EQ(edited([&](auto& s) { put<double>(s, p1 + kCostOff, 0.31); }), P2B_ERR_STATE_MISMATCH);
  EXPECT_EQ(edited([](auto& s) { put<uint32_t>(s, kRngHasSpareAt, 2); }), P2B_ERR_CORRUPT_STATE);
  // The generator's fixed point: every draw would be 0 and the noise's
  // Gaussian would never return (found by fuzz_cmab_state as a timeout).
  EXPECT_EQ(edited([](auto& s) {
              for (size_t w = 0; w < 4; ++w) put<uint64_t>(s, kRngWordsAt + 8 * w, 0);
            }),
            P2B_ERR_CORRUPT_STATE);
  EXPECT_EQ(edited([](auto& s) { put<uint32_t>(s, kDecidedAt, 2); }), P2B_ERR_CORRUPT_STATE);
  // The ledger-reset attack with the key: fewer releases than the share
  // last drawn says, or more than the schedule allows.
  EXPECT_EQ(
      edited([&](auto& s) { put<uint32_t>(s, kReleasesAt, get<uint32_t>(s, kReleasesAt) - 1); }),
      P2B_ERR_CORRUPT_STATE);
  EXPECT_EQ(edited([&](auto& s) {
              put<uint32_t>(s, kReleasesAt, get<uint32_t>(s, kReleasesAt) + 1);
              put<uint32_t>(s, kShareReleaseAt, get<uint32_t>(s, kShareReleaseAt) + 1);
            }),
            P2B_ERR_CORRUPT_STATE);
  EXPECT_EQ(edited([&](auto& s) { put<uint64_t>(s, kTauAt, get<uint64_t>(s, kTauAt) + 1); }),
            P2B_ERR_CORRUPT_STATE);
  EXPECT_EQ(edited([&](auto& s) { put<double>(s, kShareEpsilonAt, nan); }), P2B_ERR_CORRUPT_STATE);
  EXPECT_EQ(edited([&](auto& s) { put<double>(s, p1 + kSeenOff, -1.0); }), P2B_ERR_CORRUPT_STATE);
  EXPECT_EQ(edited([&](auto& s) { put<double>(s, p1 + kGoodSeenOff, nan); }),
            P2B_ERR_CORRUPT_STATE);
  EXPECT_EQ(edited([&](auto& s) { put<double>(s, p1 + kUnsentOff, 0.5); }), P2B_ERR_CORRUPT_STATE);
  EXPECT_EQ(edited([&](auto& s) {
              put<double>(s, p1 + kGoodUnsentOff, get<double>(s, p1 + kUnsentOff) + 1.0);
            }),
            P2B_ERR_CORRUPT_STATE);
  EXPECT_EQ(edited([&](auto& s) { put<uint32_t>(s, p1 + kDecisionOff, 11); }),
            P2B_ERR_CORRUPT_STATE);
  EXPECT_EQ(target.bytes(), before);

  // A fresh agent's state claiming a waiting share it never drew.
  std::vector<uint8_t> fresh = saved(make(c));
  put<uint32_t>(fresh, kShareWaitingAt, 1);
  EXPECT_EQ(restore(target, remac(fresh)), P2B_ERR_CORRUPT_STATE);
  EXPECT_EQ(target.bytes(), before);
}

TEST(CmabState, BadArgumentsGetTheirOwnStatus) {
  Agent g = make(sharing_config(2));
  std::vector<uint8_t> buf = saved(g);
  size_t n = 0;
  EXPECT_EQ(p2b_cmab_save_size(nullptr, &n), P2B_ERR_NULL_POINTER);
  EXPECT_EQ(p2b_cmab_save_size(g.a, nullptr), P2B_ERR_NULL_POINTER);
  EXPECT_EQ(p2b_cmab_save(g.a, nullptr, buf.data(), buf.size(), &n), P2B_ERR_NULL_POINTER);
  EXPECT_EQ(p2b_cmab_save(g.a, kKey.bytes, nullptr, buf.size(), &n), P2B_ERR_NULL_POINTER);
  EXPECT_EQ(p2b_cmab_save(g.a, kKey.bytes, buf.data(), buf.size(), nullptr), P2B_ERR_NULL_POINTER);
  EXPECT_EQ(p2b_cmab_restore(g.a, nullptr, buf.data(), buf.size()), P2B_ERR_NULL_POINTER);
  EXPECT_EQ(p2b_cmab_restore(g.a, kKey.bytes, nullptr, buf.size()), P2B_ERR_NULL_POINTER);
  alignas(P2B_ARENA_ALIGN) unsigned char junk[512] = {};
  auto* not_an_agent = reinterpret_cast<p2b_cmab*>(junk);
  EXPECT_EQ(p2b_cmab_save_size(not_an_agent, &n), P2B_ERR_NOT_INITIALIZED);
  EXPECT_EQ(p2b_cmab_save(not_an_agent, kKey.bytes, buf.data(), buf.size(), &n),
            P2B_ERR_NOT_INITIALIZED);
  EXPECT_EQ(p2b_cmab_restore(not_an_agent, kKey.bytes, buf.data(), buf.size()),
            P2B_ERR_NOT_INITIALIZED);
}

}  // namespace
