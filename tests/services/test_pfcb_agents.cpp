// P-FCB end to end (docs/pfcb-relay.md): four in-process CmabAgents, each
// behind a PeerClient, exchange their shares through a real p2b-relay on
// loopback. With eps = infinity and omega1 = infinity (every report
// accepted) and omega2 = 1, a share is an agent's exact count increment and
// every one is applied, so after the last fetch each agent's W must be the
// sum of all agents' procurement: the network neither loses, repeats nor
// alters a share. An agent that stops does not stall the others. Every
// fetch is a signed read (read_auth.hpp), and none is refused.
#include <gtest/gtest.h>
#include <sodium.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "p2b/cmab.hpp"
#include "pfcb/peer_client.hpp"
#include "pfcb/relay_requests.hpp"
#include "pfcb/wire/pfcb_wire.hpp"

#include <httplib.h>

#include "proc/service_process.hpp"

namespace {

namespace fs = std::filesystem;
namespace pfcb = p2b::pfcb;
using p2b::proc::ServiceProcess;

constexpr uint32_t kM = 5;
constexpr uint32_t kAgents = 4;
const double kCost[kM] = {0.10, 0.20, 0.30, 0.15, 0.25};
const uint32_t kCapacity[kM] = {3, 2, 4, 1, 5};
const double kQuality[kM] = {0.9, 0.3, 0.6, 0.5, 0.7};

struct Member {
  std::vector<uint8_t> arena;
  p2b::CmabAgent* agent = nullptr;
  std::unique_ptr<pfcb::PeerClient> client;
  std::array<double, kM> procured{};  // units this agent bought, per producer
  bool stopped = false;
};

class PfcbAgents : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_GE(sodium_init(), 0);
    dir_ = fs::path(P2B_TEST_TMP) /
           ("pfcb-agents-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    crypto_aead_xchacha20poly1305_ietf_keygen(key_.data());
    uint8_t fp[16];
    ASSERT_TRUE(pfcb::consortium_fingerprint(key_.data(), fp));
    std::ofstream members(dir_ / "members.txt");
    for (uint32_t i = 0; i < kAgents; ++i) {
      crypto_sign_keypair(pks_[i].data(), sks_[i].data());
      char hex[65];
      sodium_bin2hex(hex, sizeof hex, pks_[i].data(), 32);
      members << hex << "\n";
    }
    members.close();
    relay_.start(
        P2B_RELAY_BIN,
        {"--store", (dir_ / "relay.db").string(), "--members", (dir_ / "members.txt").string(),
         "--consortium-fp", pfcb::fingerprint_hex(fp), "--producers", std::to_string(kM)},
        (dir_ / "relay.log").string());
  }
  void TearDown() override {
    if (relay_.running()) relay_.stop();
  }

  // Agent i of the consortium; `every_round` releases at every round of
  // [1, horizon] (all procurement is shared), otherwise the paper's
  // schedule on the window [20, 200].
  void make_agents(uint64_t horizon, bool every_round) {
    for (uint32_t i = 0; i < kAgents; ++i) {
      p2b::CmabConfig& cfg = configs_[i];
      cfg.producers = kM;
      cfg.cost = kCost;
      cfg.capacity = kCapacity;
      cfg.alpha = 0.4;
      cfg.explore_rounds = 5;
      cfg.horizon = horizon;
      cfg.schedule = every_round ? p2b::CmabSchedule::every_round : p2b::CmabSchedule::paper;
      cfg.window_start = every_round ? 1 : 20;
      cfg.window_stop = every_round ? horizon : 200;
      cfg.epsilon = std::numeric_limits<double>::infinity();
      cfg.omega1 = std::numeric_limits<double>::infinity();
      cfg.omega2 = 1.0;
      cfg.agents = kAgents;
      cfg.max_peers = kAgents;
      cfg.deterministic = true;
      cfg.seed = 100 + i;
      start_member(i);
    }
  }

  // Agent i's process, started (or restarted after a crash: a fresh arena
  // and client, then resume() from its checkpoint when it keeps one).
  void start_member(uint32_t i) {
    const p2b::CmabConfig& cfg = configs_[i];
    std::size_t bytes = 0;
    ASSERT_EQ(p2b::CmabAgent::footprint(cfg, &bytes), p2b::Status::ok);
    Member& m = members_[i];
    m.client.reset();
    m.arena.assign(bytes, 0);
    ASSERT_EQ(p2b::CmabAgent::init(m.arena.data(), bytes, cfg, &m.agent), p2b::Status::ok);
    pfcb::PeerConfig pc;
    pc.producers = kM;
    pc.members.assign(pks_.begin(), pks_.end());
    pc.sign_sk = sks_[i];
    pc.consortium_key = key_;
    pc.fetch_limit = 16;
    if (checkpoints_) {
      pc.checkpoint_path = (dir_ / ("agent" + std::to_string(i) + ".ckpt")).string();
      pc.state_key.fill(static_cast<uint8_t>(0x40 + i));
    }
    pfcb::RelayLink link = pfcb::http_relay_link("127.0.0.1", relay_.port());
    if (answer_loss_ > 0.0) link = lossy(std::move(link));
    m.client = std::make_unique<pfcb::PeerClient>(m.agent, pc, std::move(link));
    ASSERT_TRUE(m.client->ok());
    ASSERT_EQ(m.client->own_index(), i);
    if (checkpoints_) {
      bool restored = false;
      std::string err;
      ASSERT_TRUE(m.client->resume(&restored, &err)) << err;
    }
  }

  // The relay acts on every post, but its answer is lost with probability
  // answer_loss_: the client must send again and take the 409.
  pfcb::RelayLink lossy(pfcb::RelayLink link) {
    auto post = link.post;
    link.post = [this, post](const std::string& path, const std::string& body, std::string* reply) {
      const int status = post(path, body, reply);
      return std::bernoulli_distribution(answer_loss_)(faults_) ? -1 : status;
    };
    return link;
  }

  // One procurement round of agent m: decide, draw the good units, observe.
  static void procure(Member& m, std::mt19937_64& rng) {
    uint32_t units[kM] = {};
    uint32_t good[kM] = {};
    ASSERT_EQ(m.agent->decide(units, kM), p2b::Status::ok);
    for (uint32_t i = 0; i < kM; ++i) {
      std::binomial_distribution<uint32_t> draw(units[i], kQuality[i]);
      good[i] = draw(rng);
      m.procured[i] += units[i];
    }
    ASSERT_EQ(m.agent->observe(good, kM), p2b::Status::ok);
  }

  void round(std::mt19937_64& rng) {
    for (Member& m : members_) {
      if (m.stopped) continue;
      procure(m, rng);
      m.client->after_observe();
      m.client->flush();
      m.client->fetch();
    }
  }

  // Until every running agent's outbox is empty and a fetch brings nothing.
  void settle() {
    for (int pass = 0; pass < 50; ++pass) {
      std::size_t moved = 0;
      for (Member& m : members_) {
        if (m.stopped) continue;
        m.client->flush();
        moved += m.client->outbox().size() + m.client->fetch();
      }
      if (moved == 0) return;
    }
    FAIL() << "the agents did not settle";
  }

  std::array<double, kM> units_seen(const Member& m) const {
    std::array<double, kM> w{};
    std::array<double, kM> q{};
    EXPECT_EQ(m.agent->estimates(w.data(), q.data(), kM), p2b::Status::ok);
    return w;
  }

  fs::path dir_;
  bool checkpoints_ = false;
  double answer_loss_ = 0.0;
  std::mt19937_64 faults_{29};
  std::array<p2b::CmabConfig, kAgents> configs_{};
  std::array<uint8_t, 32> key_{};
  std::array<std::array<uint8_t, 32>, kAgents> pks_{};
  std::array<std::array<uint8_t, 64>, kAgents> sks_{};
  std::array<Member, kAgents> members_;
  ServiceProcess relay_;
};

TEST_F(PfcbAgents, EverySharePassesTheNetworkExactly) {
  constexpr uint64_t kRounds = 300;
  make_agents(kRounds, true);
  std::mt19937_64 rng(17);
  for (uint64_t t = 0; t < kRounds; ++t) round(rng);
  settle();
  std::array<double, kM> total{};
  for (const Member& m : members_) {
    for (uint32_t i = 0; i < kM; ++i) total[i] += m.procured[i];
  }
  for (uint32_t a = 0; a < kAgents; ++a) {
    const Member& m = members_[a];
    const pfcb::PeerStats& s = m.client->stats();
    EXPECT_EQ(s.shares_sealed, kRounds) << a;
    EXPECT_EQ(m.client->outbox().counts().acked, kRounds) << a;
    EXPECT_EQ(s.shares_applied, (kAgents - 1) * kRounds) << a;
    EXPECT_EQ(s.postings_refused, 0U) << a;
    EXPECT_EQ(s.producers_rejected, 0U) << a;
    EXPECT_EQ(s.fetches_forbidden, 0U) << a;  // every signed read was a member's, fresh
    const std::array<double, kM> w = units_seen(m);
    for (uint32_t i = 0; i < kM; ++i)
      EXPECT_EQ(w[i], total[i]) << "agent " << a << " producer " << i;
  }
  httplib::Client c("127.0.0.1", relay_.port());
  const auto r = c.Get("/v1/pfcb/stats");
  ASSERT_TRUE(r && r->status == 200);
  const nlohmann::json s = nlohmann::json::parse(r->body);
  EXPECT_EQ(s["postings_accepted"], kAgents * kRounds);
  EXPECT_EQ(s["postings_refused"], 0);
  EXPECT_EQ(s["fetches_forbidden"], 0);
  EXPECT_GT(s["postings_served"].get<uint64_t>(), 0U);
}

TEST_F(PfcbAgents, PaperScheduleDeliversEveryReleaseAndAStoppedAgentStallsNoOne) {
  constexpr uint64_t kRounds = 400;
  make_agents(kRounds, false);
  std::mt19937_64 rng(18);
  for (uint64_t t = 0; t < kRounds; ++t) {
    if (t == 120) members_[3].stopped = true;  // silent from here on: no posts, no fetches
    round(rng);
  }
  settle();
  const uint64_t stopped_sent = members_[3].client->outbox().counts().acked;
  ASSERT_GT(stopped_sent, 0U);
  for (uint32_t a = 0; a < 3; ++a) {
    const Member& m = members_[a];
    const pfcb::PeerStats& s = m.client->stats();
    // The paper's schedule on [20, 200]: releases at 20..27 (tau catching
    // up) and 32, 64, 128: every agent's releases reach every other.
    EXPECT_GT(s.shares_sealed, 0U) << a;
    uint64_t others = stopped_sent;
    for (uint32_t b = 0; b < 3; ++b) {
      if (b != a) others += members_[b].client->stats().shares_sealed;
    }
    EXPECT_EQ(s.shares_applied, others) << a;
    EXPECT_EQ(s.postings_refused, 0U) << a;
  }
}

// The same exactness through crashes: every agent keeps a checkpoint, a
// fifth of the relay's answers are lost (the relay stored the posting, the
// client must send it again), and at random points an agent's process dies:
// its arena and client are gone, and a new process resumes from the
// checkpoint. Still every agent's W is the sum of all procurement, so no
// share was lost, applied twice or altered; the relay stored each release
// exactly once (its own refusal of a second copy is what a 409 says); and the
// restarted agents' ledgers are whole.
TEST_F(PfcbAgents, EverySharePassesTheNetworkExactlyThroughCrashesAndLostAnswers) {
  constexpr uint64_t kRounds = 200;
  checkpoints_ = true;
  answer_loss_ = 0.2;
  make_agents(kRounds, true);
  std::mt19937_64 rng(19);
  std::bernoulli_distribution crash(0.05);
  uint64_t crashes = 0;
  for (uint64_t t = 0; t < kRounds; ++t) {
    for (uint32_t a = 0; a < kAgents; ++a) {
      Member& m = members_[a];
      procure(m, rng);
      ASSERT_TRUE(m.client->after_observe());
      ASSERT_TRUE(m.client->checkpointed());
      // A crash may come after any of the three calls.
      if (crash(faults_)) {
        start_member(a);
        ++crashes;
      }
      m.client->flush();
      if (crash(faults_)) {
        start_member(a);
        ++crashes;
      }
      m.client->fetch();
      if (crash(faults_)) {
        start_member(a);
        ++crashes;
      }
    }
  }
  settle();
  EXPECT_GT(crashes, 20U);
  std::array<double, kM> total{};
  for (const Member& m : members_) {
    for (uint32_t i = 0; i < kM; ++i) total[i] += m.procured[i];
  }
  for (uint32_t a = 0; a < kAgents; ++a) {
    const Member& m = members_[a];
    EXPECT_EQ(m.client->outbox().size(), 0U) << a;
    const std::array<double, kM> w = units_seen(m);
    for (uint32_t i = 0; i < kM; ++i) {
      EXPECT_EQ(w[i], total[i]) << "agent " << a << " producer " << i;
    }
    p2b::CmabPrivacy spent;
    ASSERT_EQ(m.agent->privacy(&spent), p2b::Status::ok);
    EXPECT_EQ(spent.releases, kRounds) << "agent " << a << ": the ledger survived its restarts";
  }
  httplib::Client c("127.0.0.1", relay_.port());
  const auto r = c.Get("/v1/pfcb/stats");
  ASSERT_TRUE(r && r->status == 200);
  const nlohmann::json s = nlohmann::json::parse(r->body);
  EXPECT_EQ(s["postings_accepted"], kAgents * kRounds);
  std::cout << "crashes " << crashes << ", relay: " << s.dump() << "\n";
}

}  // namespace
