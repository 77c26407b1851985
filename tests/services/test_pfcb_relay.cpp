// p2b-relay as a real process on loopback (docs/pfcb-relay.md), with keys
// from p2b-keygen --pfcb-consortium / --pfcb-agent. The postings here are
// sealed at the byte level (a Share body encoded with nanopb), so these
// tests need no agent: what the relay stores, forwards and refuses, its
// retention, the ledger across a SIGKILL, who may read (members that sign
// their GET; an outsider learns nothing, not even who the members are), and
// a damaged row, quarantined rather than served. The agents' end-to-end
// runs are in test_pfcb_agents.cpp.
#include <gtest/gtest.h>
#include <pb_encode.h>
#include <sodium.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/keyfiles.hpp"
#include "exposition_check.hpp"
#include "p2b_pfcb.pb.h"
#include "pfcb/read_auth.hpp"
#include "pfcb/relay_link.hpp"
#include "pfcb/relay_requests.hpp"
#include "pfcb/relay_service.hpp"
#include "pfcb/wire/pfcb_wire.hpp"

#include <httplib.h>

#include "proc/run_command.hpp"
#include "proc/service_process.hpp"

namespace {

namespace fs = std::filesystem;
namespace pfcb = p2b::pfcb;
using nlohmann::json;
using p2b::proc::ServiceProcess;

constexpr uint32_t kM = 8;
constexpr int kAgents = 4;

struct AgentKeys {
  std::array<uint8_t, 32> pk{};
  std::array<uint8_t, 64> sk{};
};

std::vector<uint8_t> share_body(uint32_t release, int32_t who) {
  p2b_pfcb_v1_Share s = p2b_pfcb_v1_Share_init_zero;
  s.format = 1;
  s.producers = kM;
  s.release = release;
  s.round = 100 + release;
  s.release_epsilon = 0.1;
  s.w_noisy_count = s.y_noisy_count = kM;
  for (uint32_t i = 0; i < kM; ++i) {
    s.w_noisy[i] = who * 100 + static_cast<int32_t>(i);
    s.y_noisy[i] = who;
  }
  std::vector<uint8_t> out(pfcb::share_body_size(kM));
  pb_ostream_t os = pb_ostream_from_buffer(out.data(), out.size());
  EXPECT_TRUE(pb_encode(&os, &p2b_pfcb_v1_Share_msg, &s));
  EXPECT_EQ(os.bytes_written, out.size());
  return out;
}

json get_json(int port, const std::string& path) {
  httplib::Client c("127.0.0.1", port);
  const auto r = c.Get(path);
  if (!r || r->status != 200) return json();
  return json::parse(r->body, nullptr, false);
}

int post_bytes(int port, const std::vector<uint8_t>& body, std::string* reply = nullptr) {
  httplib::Client c("127.0.0.1", port);
  const auto r = c.Post("/v1/pfcb/postings", std::string(body.begin(), body.end()),
                        "application/octet-stream");
  if (!r) return -1;
  if (reply != nullptr) *reply = r->body;
  return r->status;
}

// Wall-clock microseconds, strictly increasing within the test process: a
// signed read's time (read_auth.hpp).
uint64_t read_time_us() {
  static uint64_t last = 0;
  const auto since = std::chrono::system_clock::now().time_since_epoch();
  const auto now =
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(since).count());
  last = std::max(now, last + 1);
  return last;
}

// The headers of a read of `q` signed with `sk` at `time_us`.
httplib::Headers signed_headers(const uint8_t* consortium_fp, const pfcb::ListQuery& q,
                                const uint8_t* sk, uint64_t time_us) {
  std::multimap<std::string, std::string> h;
  EXPECT_TRUE(pfcb::sign_read(q, consortium_fp, time_us, sk, &h));
  return httplib::Headers(h.begin(), h.end());
}

pfcb::ListQuery query(uint64_t after, uint32_t limit) {
  pfcb::ListQuery q;
  q.after = after;
  q.limit = limit;
  return q;
}

// Every stored posting (no exclude), as (seq, bytes), following the cursor,
// read as the member whose secret key is `sk`.
std::vector<std::pair<uint64_t, std::vector<uint8_t>>> fetch_all(int port,
                                                                 const uint8_t* consortium_fp,
                                                                 const uint8_t* sk,
                                                                 uint32_t limit = 7) {
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> out;
  const std::size_t wire = pfcb::posting_wire_size(kM);
  uint64_t after = 0;
  for (int guard = 0; guard < 100000; ++guard) {
    httplib::Client c("127.0.0.1", port);
    const pfcb::ListQuery q = query(after, limit);
    const auto r = c.Get(pfcb::list_path(q), signed_headers(consortium_fp, q, sk, read_time_us()));
    EXPECT_TRUE(r && r->status == 200);
    if (!r || r->status != 200) break;
    EXPECT_EQ(r->body.size() % (8 + wire), 0U);
    const auto* b = reinterpret_cast<const uint8_t*>(r->body.data());
    const std::size_t n = r->body.size() / (8 + wire);
    for (std::size_t i = 0; i < n; ++i) {
      uint64_t seq = 0;
      for (int k = 7; k >= 0; --k) seq = seq << 8 | b[i * (8 + wire) + k];
      out.emplace_back(seq, std::vector<uint8_t>(b + i * (8 + wire) + 8, b + (i + 1) * (8 + wire)));
    }
    const uint64_t next = std::stoull(r->get_header_value(pfcb::kCursorHeader));
    if (n < limit || next == after) break;
    after = next;
  }
  return out;
}

bool wait_for(const std::function<bool()>& done, double seconds = 20.0) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

class PfcbRelay : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_GE(sodium_init(), 0);
    dir_ = fs::path(P2B_TEST_TMP) /
           ("pfcb-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    // The operator's way: p2b-keygen for the consortium key and each agent.
    ASSERT_EQ(
        p2b::proc::run_command(
            {P2B_KEYGEN_BIN, "--out", (dir_ / "consortium").string(), "--pfcb-consortium"}, true),
        0);
    std::string err;
    ASSERT_TRUE(p2b::keyfiles::read_key_file((dir_ / "consortium" / "pfcb.consortium.key").string(),
                                             key_.data(), key_.size(), &err))
        << err;
    ASSERT_TRUE(pfcb::consortium_fingerprint(key_.data(), fp_));
    std::ofstream members(dir_ / "members.txt");
    members << "# the consortium, in sender-index order\n";
    for (int i = 0; i < kAgents + 1; ++i) {  // the last one stays out of the members file
      const fs::path d = dir_ / ("agent" + std::to_string(i));
      ASSERT_EQ(p2b::proc::run_command({P2B_KEYGEN_BIN, "--out", d.string(), "--pfcb-agent"}, true),
                0);
      AgentKeys k;
      ASSERT_TRUE(
          p2b::keyfiles::read_key_file((d / "pfcb.sign.pk").string(), k.pk.data(), 32, &err));
      std::string warning;
      ASSERT_TRUE(p2b::keyfiles::read_secret_key_file((d / "pfcb.sign.sk").string(), k.sk.data(),
                                                      64, &err, &warning));
      agents_.push_back(k);
      if (i < kAgents) {
        char hex[65];
        sodium_bin2hex(hex, sizeof hex, k.pk.data(), 32);
        members << hex << "\n";
      }
    }
  }
  void TearDown() override {
    if (relay_.running()) relay_.stop();
  }

  std::vector<std::string> relay_args(int port = 0, const std::string& retention = "86400") {
    return {"--store",
            (dir_ / "relay.db").string(),
            "--members",
            (dir_ / "members.txt").string(),
            "--consortium-fp",
            pfcb::fingerprint_hex(fp_),
            "--producers",
            std::to_string(kM),
            "--retention-seconds",
            retention,
            "--sweep-seconds",
            "0.2",
            "--listen",
            "127.0.0.1:" + std::to_string(port)};
  }
  void start_relay(int port = 0, const std::string& retention = "86400") {
    relay_.start(P2B_RELAY_BIN, relay_args(port, retention),
                 (dir_ / ("relay" + std::to_string(starts_++) + ".log")).string());
  }

  std::vector<uint8_t> seal(int who, uint32_t release, const uint8_t* key = nullptr) {
    const std::vector<uint8_t> body = share_body(release, who);
    std::vector<uint8_t> out;
    std::string err;
    EXPECT_TRUE(pfcb::seal_posting_body(body.data(), body.size(), kM, release,
                                        agents_[static_cast<std::size_t>(who)].sk.data(),
                                        key != nullptr ? key : key_.data(), &out, &err))
        << err;
    return out;
  }

  json stats() { return get_json(relay_.port(), "/v1/pfcb/stats"); }
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> fetch_all(int port, uint32_t limit = 7) {
    return ::fetch_all(port, fp_, agents_[0].sk.data(), limit);
  }
  std::string log_text(int start) const {
    std::ifstream log(dir_ / ("relay" + std::to_string(start) + ".log"));
    return std::string((std::istreambuf_iterator<char>(log)), {});
  }

  pfcb::Members members() const {
    std::vector<pfcb::VerifyKey> keys;
    keys.reserve(kAgents);
    for (int i = 0; i < kAgents; ++i) keys.push_back(agents_[static_cast<std::size_t>(i)].pk);
    return pfcb::Members(keys);
  }

  fs::path dir_;
  std::array<uint8_t, 32> key_{};
  uint8_t fp_[16] = {};
  std::vector<AgentKeys> agents_;
  ServiceProcess relay_;
  int starts_ = 0;
};

TEST_F(PfcbRelay, StoresInOrderAndEachAgentFetchesTheOthers) {
  start_relay();
  const int port = relay_.port();
  for (uint32_t z = 1; z <= 3; ++z) {
    for (int a = 0; a < kAgents; ++a) {
      std::string reply;
      ASSERT_EQ(post_bytes(port, seal(a, z), &reply), 200) << reply;
      EXPECT_EQ(json::parse(reply)["release"], z);
    }
  }
  const auto all = fetch_all(port, 5);
  ASSERT_EQ(all.size(), 12U);
  const pfcb::Members m = members();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (i > 0) {
      EXPECT_GT(all[i].first, all[i - 1].first);
    }
    std::vector<uint8_t> body;
    pfcb::PostingHeader h;
    std::string err;
    ASSERT_EQ(pfcb::open_posting_body(all[i].second.data(), all[i].second.size(), kM, key_.data(),
                                      m, &body, &h, &err),
              pfcb::PostingStatus::ok)
        << err;
    EXPECT_EQ(h.sender_index, i % kAgents);
    EXPECT_EQ(body,
              share_body(static_cast<uint32_t>(i / kAgents + 1), static_cast<int>(i % kAgents)));
  }
  // An agent's view leaves out its own postings, and its cursor passes them.
  pfcb::RelayLink link = pfcb::http_relay_link("127.0.0.1", port);
  std::string reply, cursor;
  uint8_t own[16];
  pfcb::sender_fingerprint(agents_[2].pk.data(), own);
  const std::size_t record = 8 + pfcb::posting_wire_size(kM);
  pfcb::ListQuery mine = query(0, 64);
  mine.exclude = true;
  std::memcpy(mine.exclude_fp, own, 16);
  const auto as_agent2 = [&](const pfcb::ListQuery& q) {
    std::multimap<std::string, std::string> h;
    EXPECT_TRUE(pfcb::sign_read(q, fp_, read_time_us(), agents_[2].sk.data(), &h));
    return h;
  };
  // The client reads no more than it is told: one byte short of the nine
  // records is no answer, and leaves the reply and the cursor untouched.
  reply = "kept";
  EXPECT_EQ(link.get(pfcb::list_path(mine), as_agent2(mine), 9 * record - 1, &reply, &cursor), -1);
  EXPECT_EQ(reply, "kept");
  ASSERT_EQ(link.get(pfcb::list_path(mine), as_agent2(mine), 9 * record, &reply, &cursor), 200);
  EXPECT_EQ(reply.size(), 9 * record);
  EXPECT_EQ(cursor, std::to_string(all.back().first));
  const pfcb::ListQuery rest = query(std::stoull(cursor), 1);
  ASSERT_EQ(link.get(pfcb::list_path(rest), as_agent2(rest), record, &reply, &cursor), 200);
  EXPECT_TRUE(reply.empty());
  // Bad queries are refused and counted, signed or not: their shape is public.
  for (const char* q : {"?after=-1", "?after=x", "?limit=0", "?limit=5000", "?exclude=zz",
                        "?after=1&after=2", "?what=1"}) {
    EXPECT_EQ(link.get(std::string("/v1/pfcb/postings") + q, {}, 4096, &reply, &cursor), 400) << q;
  }
  const json s = stats();
  EXPECT_EQ(s["postings_accepted"], 12);
  EXPECT_EQ(s["stored"], 12);
  EXPECT_EQ(s["fetches_refused"], 7);
  EXPECT_EQ(s["fetches_forbidden"], 0);
  // Nothing per sender and no member count: they would name the members.
  EXPECT_FALSE(s.contains("accepted_by_sender"));
  EXPECT_FALSE(s.contains("members"));
  // /metrics carries the same counts.
  httplib::Client c("127.0.0.1", port);
  const auto metrics = c.Get("/metrics");
  ASSERT_TRUE(metrics && metrics->status == 200);
  EXPECT_NE(metrics->body.find("p2b_relay_postings_accepted_total 12"), std::string::npos);
  EXPECT_NE(metrics->body.find("p2b_relay_stored 12"), std::string::npos);
  // In the one style of every service (the common host's families).
  EXPECT_EQ(p2b::test::exposition_error(metrics->body), "");
  EXPECT_EQ(p2b::test::common_families_missing(metrics->body, "p2b_relay"), "");
  EXPECT_EQ(p2b::proc::metric_value(metrics->body,
                                    "p2b_relay_http_request_duration_seconds_count{method="
                                    "\"POST\",code=\"200\"}"),
            12.0);
  const auto ready = c.Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200);
}

TEST_F(PfcbRelay, RefusesBadPostingsAndStoresNothing) {
  start_relay();
  const int port = relay_.port();
  const std::vector<uint8_t> good = seal(1, 1);
  ASSERT_EQ(post_bytes(port, good), 200);
  // Replay: the same bytes, and the same release sealed again.
  EXPECT_EQ(post_bytes(port, good), 409);
  EXPECT_EQ(post_bytes(port, seal(1, 1)), 409);
  // Every byte of a fresh posting flipped: refused (the signature covers all).
  const std::vector<uint8_t> fresh = seal(1, 2);
  for (std::size_t i = 0; i < fresh.size(); ++i) {
    std::vector<uint8_t> t = fresh;
    t[i] ^= static_cast<uint8_t>(1U << (i % 8));
    ASSERT_EQ(post_bytes(port, t), 400) << "byte " << i;
  }
  // Truncated, one byte long, and far too long (the HTTP layer's 413).
  std::vector<uint8_t> t(fresh.begin(), fresh.end() - 1);
  EXPECT_EQ(post_bytes(port, t), 400);
  EXPECT_EQ(post_bytes(port, {}), 400);
  t = fresh;
  t.push_back(0);
  EXPECT_EQ(post_bytes(port, t), 400);
  t.resize(64 * 1024, 0);
  EXPECT_EQ(post_bytes(port, t), 413);
  // Not a member, and another consortium.
  EXPECT_EQ(post_bytes(port, seal(kAgents, 1)), 400);
  std::array<uint8_t, 32> other{};
  crypto_aead_xchacha20poly1305_ietf_keygen(other.data());
  EXPECT_EQ(post_bytes(port, seal(0, 1, other.data())), 400);

  const json s = stats();
  EXPECT_EQ(s["stored"], 1);
  EXPECT_EQ(s["postings_accepted"], 1);
  EXPECT_EQ(s["replays_refused"], 2);
  const json& by = s["refused_by_reason"];
  EXPECT_EQ(by["replay"], 2);
  EXPECT_EQ(by["wrong_length"], 3);
  // A flip inside a fingerprint names another sender or consortium. An
  // unknown sender and a member's bad signature are one public reason, so
  // a POST does not say whether a key is a member's.
  EXPECT_GT(by["unauthenticated"].get<uint64_t>(), 1U + 16U);
  EXPECT_FALSE(by.contains("unknown_sender"));
  EXPECT_FALSE(by.contains("bad_signature"));
  EXPECT_EQ(by["consortium_mismatch"], 1 + 16);
  EXPECT_GT(by["bad_magic"].get<uint64_t>(), 0U);
  EXPECT_EQ(s["postings_refused"], 2 + 3 + 1 + 1 + fresh.size());
  // The store holds exactly the one good posting, byte for byte; the
  // untampered fresh one is still accepted.
  const auto all = fetch_all(port);
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].second, good);
  EXPECT_EQ(post_bytes(port, fresh), 200);
  // The log names reasons and sizes, never a posting's bytes.
  relay_.stop();
  std::ifstream log(dir_ / "relay0.log");
  const std::string text((std::istreambuf_iterator<char>(log)), {});
  EXPECT_NE(text.find("posting_refused"), std::string::npos);
  EXPECT_EQ(text.find(pfcb::fingerprint_hex(fp_)), std::string::npos);
  char hex[2 * 64 + 1];
  sodium_bin2hex(hex, sizeof hex, fresh.data() + 100, 64);
  EXPECT_EQ(text.find(hex), std::string::npos);
}

TEST_F(PfcbRelay, RetentionDeletesOldPostingsAndKeepsTheReplayGuard) {
  start_relay(0, "1");
  const int port = relay_.port();
  const std::vector<uint8_t> old = seal(0, 1);
  ASSERT_EQ(post_bytes(port, old), 200);
  ASSERT_TRUE(wait_for([&] { return stats()["stored"] == 0; }, 10)) << stats().dump();
  EXPECT_EQ(stats()["retention_deleted"], 1);
  // Aged out, yet not accepted again.
  EXPECT_EQ(post_bytes(port, old), 409);
  ASSERT_EQ(post_bytes(port, seal(0, 2)), 200);
  // The store of one deployment is not opened for another.
  relay_.stop();
  std::vector<std::string> args = relay_args();
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--producers") args[i + 1] = std::to_string(kM + 1);
  }
  ServiceProcess wrong;
  EXPECT_THROW(wrong.start(P2B_RELAY_BIN, args, (dir_ / "wrong.log").string(), 5.0),
               std::runtime_error);
}

// The ledger: K postings from every agent through their outboxes while the
// relay is SIGKILLed and restarted twice on the same port. Every posting
// the relay acknowledged (200, or 409 for one an earlier try stored) is in
// the store exactly once; none is there twice.
TEST_F(PfcbRelay, LedgerAcrossKills) {
  constexpr uint32_t kPerAgent = 60;
  start_relay();
  const int port = relay_.port();
  pfcb::RelayLink link = pfcb::http_relay_link("127.0.0.1", port, 2.0);
  std::vector<pfcb::Outbox> outboxes(kAgents);
  std::set<std::pair<int, uint32_t>> acked;
  std::map<int, uint64_t> conflicts;
  for (int a = 0; a < kAgents; ++a) {
    outboxes[static_cast<std::size_t>(a)].on_delivered = [&acked, &conflicts, a](uint32_t z,
                                                                                 int status) {
      acked.insert({a, z});
      if (status == 409) ++conflicts[a];
    };
  }
  std::atomic<std::size_t> delivered{0};
  std::atomic<bool> done{false};
  std::thread killer([&] {
    for (std::size_t at : {kPerAgent * kAgents / 3, 2 * kPerAgent * kAgents / 3}) {
      while (!done && delivered.load() < at)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      relay_.kill_hard();
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      start_relay(port);
    }
  });
  uint64_t retries = 0;
  for (uint32_t z = 1; z <= kPerAgent; ++z) {
    for (int a = 0; a < kAgents; ++a) outboxes[static_cast<std::size_t>(a)].push(seal(a, z), z);
    for (int tries = 0; tries < 2000; ++tries) {
      std::size_t waiting = 0;
      for (pfcb::Outbox& o : outboxes) {
        delivered += o.flush(link, nullptr);
        waiting += o.size();
      }
      if (waiting == 0) break;
      ++retries;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  done = true;
  killer.join();
  std::size_t left = 0;
  for (const pfcb::Outbox& o : outboxes) left += o.size();
  ASSERT_EQ(left, 0U);
  ASSERT_TRUE(relay_.running());

  std::map<std::pair<uint32_t, uint32_t>, int> stored;  // (sender, release) -> copies
  const pfcb::Members m = members();
  for (const auto& [seq, bytes] : fetch_all(port, 50)) {
    pfcb::PostingHeader h;
    ASSERT_EQ(pfcb::verify_posting_signature(bytes.data(), bytes.size(), kM, fp_, m, &h, nullptr),
              pfcb::PostingStatus::ok);
    ++stored[{h.sender_index, h.release}];
  }
  std::size_t lost = 0, duplicated = 0;
  for (const auto& [who, z] : acked) {
    if (stored.count({static_cast<uint32_t>(who), z}) == 0) ++lost;
  }
  for (const auto& [id, copies] : stored) duplicated += static_cast<std::size_t>(copies - 1);
  uint64_t refused = 0, failures = 0, conflicted = 0;
  for (const pfcb::Outbox& o : outboxes) {
    refused += o.counts().refused;
    failures += o.counts().send_failures;
  }
  for (const auto& [a, n] : conflicts) conflicted += n;
  std::printf(
      "ledger: offered %u, acked %zu, stored %zu, lost %zu, duplicated %zu, "
      "409-acked %llu, send failures %llu, retries %llu\n",
      kPerAgent * kAgents, acked.size(), stored.size(), lost, duplicated,
      static_cast<unsigned long long>(conflicted), static_cast<unsigned long long>(failures),
      static_cast<unsigned long long>(retries));
  EXPECT_EQ(acked.size(), std::size_t{kPerAgent} * kAgents);
  EXPECT_EQ(lost, 0U);
  EXPECT_EQ(duplicated, 0U);
  EXPECT_EQ(refused, 0U);
  EXPECT_EQ(stored.size(), std::size_t{kPerAgent} * kAgents);
  EXPECT_GT(failures, 0U);  // the kills were felt
}

// The per-id ledger under repeated kill -9 under load (issue #28). Every
// member posts its own releases, one at a time and in order, from its own
// thread; a killer SIGKILLs the relay each time the senders' acknowledged
// postings reach the next mark, and restarts it on the same store. A sender
// sends again, byte for byte, every posting that got no 2xx. The relay's
// answer to a (sender, release) it already holds is 409 {"error":"replay"},
// the same whether the bytes are the stored ones or not and whether the
// release is that one or an older one; a sender that posts in order, one at
// a time, may count a 409 after a cut-off try as delivered (the cut try was
// stored), and a 409 on a first try is a fault. After a last kill -9 past
// the final acknowledgement, a member reads the whole store with signed,
// paged reads: each acknowledged id is there exactly once with the bytes
// sent, and nothing else is.
TEST_F(PfcbRelay, PerIdLedgerUnderRepeatedKillNineIsExact) {
  constexpr uint32_t kPerSender = 150;
  constexpr int kKills = 5;
  constexpr uint64_t kStep = 100;  // acknowledged postings between kills
  // Bounded waits on events, never on a duration: 1 ms apart, at most 120 s.
  constexpr int kMaxPolls = 120000;
  constexpr int kMaxTries = 1000;  // per posting
  constexpr double kStartTimeout = 60.0;
  const auto restart = [&] {
    relay_.start(P2B_RELAY_BIN, relay_args(),
                 (dir_ / ("relay" + std::to_string(starts_++) + ".log")).string(), kStartTimeout);
  };
  // Sealed once: a re-send is the same bytes (a new seal would draw a new nonce).
  std::vector<std::vector<std::vector<uint8_t>>> sent(kAgents);
  for (int a = 0; a < kAgents; ++a) {
    for (uint32_t z = 1; z <= kPerSender; ++z)
      sent[static_cast<std::size_t>(a)].push_back(seal(a, z));
  }
  restart();
  std::atomic<int> port{relay_.port()};
  std::atomic<uint64_t> generation{0};
  std::atomic<uint64_t> acked_total{0};
  std::atomic<int> senders_left{kAgents};
  std::atomic<bool> killer_done{false};
  std::atomic<bool> killer_failed{false};
  std::thread killer([&] {
    try {
      for (int k = 1; k <= kKills && senders_left.load() > 0; ++k) {
        // A varying few past the mark, so kills land at different points.
        const uint64_t target = k * kStep + static_cast<uint64_t>(k * 7 % 5);
        for (int polls = 0;
             acked_total.load() < target && senders_left.load() > 0 && polls < kMaxPolls; ++polls) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        if (senders_left.load() == 0) break;  // not under load: does not count
        relay_.kill_hard();
        restart();
        port = relay_.port();
        ++generation;
      }
    } catch (...) {
      killer_failed = true;
    }
    killer_done = true;
  });
  // A sender whose try got no answer waits for the restart, not for a time.
  const auto wait_past = [&](uint64_t g) {
    for (int polls = 0; generation.load() == g && !killer_done.load() && polls < kMaxPolls;
         ++polls) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  };
  struct SenderLog {
    std::map<uint32_t, uint64_t> acked;  // release -> seq (0: acknowledged by a 409)
    uint64_t resent = 0;                 // postings that needed more than one try
    uint64_t cut = 0;                    // tries with no answer
    uint64_t unavailable = 0;            // tries answered 503
    uint64_t replay_acked = 0;           // 409 after a cut try: stored, answer lost
    std::vector<std::string> unexpected;
  };
  std::vector<SenderLog> logs(kAgents);
  std::vector<std::thread> senders;
  senders.reserve(kAgents);
  for (int a = 0; a < kAgents; ++a) {
    senders.emplace_back([&, a] {
      SenderLog& log = logs[static_cast<std::size_t>(a)];
      for (uint32_t z = 1; z <= kPerSender; ++z) {
        const std::vector<uint8_t>& bytes = sent[static_cast<std::size_t>(a)][z - 1];
        const std::string body(bytes.begin(), bytes.end());
        bool retried = false, delivered = false;
        for (int tries = 0; tries < kMaxTries && !delivered; ++tries) {
          const uint64_t g = generation.load();
          httplib::Client c("127.0.0.1", port.load());
          c.set_connection_timeout(10);
          c.set_read_timeout(30);
          const auto r = c.Post("/v1/pfcb/postings", body, "application/octet-stream");
          if (r && r->status == 200) {
            const json reply = json::parse(r->body, nullptr, false);
            if (!reply.is_object() || reply.value("release", 0U) != z || !reply.contains("seq")) {
              log.unexpected.push_back("200 " + r->body);
            }
            log.acked[z] = reply.is_object() ? reply.value("seq", uint64_t{0}) : 0;
            delivered = true;
          } else if (r && r->status == 409 && retried && r->body == R"({"error":"replay"})") {
            ++log.replay_acked;
            log.acked[z] = 0;
            delivered = true;
          } else if (!r || r->status == 503) {
            ++(r ? log.unavailable : log.cut);
            retried = true;
            wait_past(g);
            continue;
          } else {
            log.unexpected.push_back(std::to_string(z) + ": " + std::to_string(r->status) + " " +
                                     r->body);
            break;
          }
          ++acked_total;
        }
        log.resent += retried ? 1 : 0;
        if (!delivered) break;  // the checks below count what is missing
      }
      --senders_left;
    });
  }
  for (std::thread& t : senders) t.join();
  killer.join();
  ASSERT_FALSE(killer_failed.load()) << "a restart failed; see the relay logs in " << dir_;
  ASSERT_EQ(generation.load(), static_cast<uint64_t>(kKills)) << "kills under load";

  // Once more after the last acknowledgement, then the store as a member reads it.
  relay_.kill_hard();
  restart();
  const int final_port = relay_.port();
  const json s = stats();
  const auto all = fetch_all(final_port, 37);  // 37: pages that end mid-sender

  std::map<std::pair<uint32_t, uint32_t>, int> copies;  // (sender, release) -> stored copies
  const pfcb::Members m = members();
  uint64_t last_seq = 0;
  std::size_t phantom = 0, altered = 0, out_of_order = 0, not_acked = 0;
  for (const auto& [seq, bytes] : all) {
    out_of_order += seq <= last_seq ? 1 : 0;
    last_seq = seq;
    pfcb::PostingHeader h;
    if (pfcb::verify_posting_signature(bytes.data(), bytes.size(), kM, fp_, m, &h, nullptr) !=
            pfcb::PostingStatus::ok ||
        h.sender_index >= static_cast<uint32_t>(kAgents) || h.release < 1 ||
        h.release > kPerSender) {
      ++phantom;  // never sent by any sender of this test
      continue;
    }
    ++copies[{h.sender_index, h.release}];
    if (bytes != sent[h.sender_index][h.release - 1]) ++altered;
    const SenderLog& log = logs[h.sender_index];
    const auto it = log.acked.find(h.release);
    if (it == log.acked.end()) {
      ++not_acked;
    } else if (it->second != 0 && it->second != seq) {
      ++altered;  // stored under another seq than the 200 named
    }
  }
  std::size_t acknowledged = 0, lost = 0, duplicated = 0;
  uint64_t resent = 0, cut = 0, unavailable = 0, replay_acked = 0;
  std::vector<std::string> unexpected;
  for (int a = 0; a < kAgents; ++a) {
    const SenderLog& log = logs[static_cast<std::size_t>(a)];
    acknowledged += log.acked.size();
    for (const auto& [z, seq] : log.acked) {
      lost += copies.count({static_cast<uint32_t>(a), z}) == 0 ? 1 : 0;
    }
    resent += log.resent;
    cut += log.cut;
    unavailable += log.unavailable;
    replay_acked += log.replay_acked;
    unexpected.insert(unexpected.end(), log.unexpected.begin(), log.unexpected.end());
  }
  for (const auto& [id, n] : copies) duplicated += static_cast<std::size_t>(n - 1);
  std::printf(
      "[ figure ] relay ledger: %d senders, %d kill -9 under load (+1 after the last ack), "
      "offered %zu, acknowledged %zu (%llu by a 409 replay after a cut-off try: stored, answer "
      "lost), re-sent %llu (%llu tries cut off, %llu answered 503), stored %zu: lost %zu, "
      "duplicated %zu, phantom %zu, altered %zu\n",
      kAgents, kKills, std::size_t{kPerSender} * kAgents, acknowledged,
      static_cast<unsigned long long>(replay_acked), static_cast<unsigned long long>(resent),
      static_cast<unsigned long long>(cut), static_cast<unsigned long long>(unavailable),
      all.size(), lost, duplicated, phantom, altered);
  EXPECT_TRUE(unexpected.empty()) << unexpected.size() << " unexpected answers, first: "
                                  << (unexpected.empty() ? "" : unexpected.front());
  EXPECT_EQ(acknowledged, std::size_t{kPerSender} * kAgents);
  EXPECT_EQ(lost, 0U);
  EXPECT_EQ(duplicated, 0U);
  EXPECT_EQ(phantom, 0U);
  EXPECT_EQ(altered, 0U);
  EXPECT_EQ(out_of_order, 0U);
  EXPECT_EQ(not_acked, 0U);
  EXPECT_EQ(all.size(), acknowledged);
  EXPECT_GT(cut, 0U);  // the kills were felt by senders mid-request
  // The restarted relay's own count agrees, and it quarantined nothing.
  EXPECT_EQ(s["stored"], acknowledged);
  EXPECT_EQ(s["quarantine"], 0);
  EXPECT_EQ(stats()["postings_quarantined"], 0);
}

// Who may read. An outsider without a key, an outsider with a key of its
// own, a member's key with someone else's signature, a malformed or stale
// request: each gets the same 403 and no posting, and no public route
// (answers, stats, metrics, readiness) names a member.
TEST_F(PfcbRelay, AnOutsiderReadsNothingAndLearnsNoMember) {
  start_relay();
  const int port = relay_.port();
  for (int a = 0; a < kAgents; ++a) ASSERT_EQ(post_bytes(port, seal(a, 1)), 200);
  const pfcb::ListQuery q = query(0, 64);
  const std::string path = pfcb::list_path(q);
  struct Answer {
    int status = -1;
    std::string body;
    bool has_cursor = false;
  };
  const auto get = [&](const httplib::Headers& h) {
    httplib::Client c("127.0.0.1", port);
    const auto r = c.Get(path, h);
    Answer a;
    if (r) a = Answer{r->status, r->body, r->has_header(pfcb::kCursorHeader)};
    return a;
  };
  // A member's genuine read, for contrast.
  const Answer member = get(signed_headers(fp_, q, agents_[1].sk.data(), read_time_us()));
  ASSERT_EQ(member.status, 200);
  EXPECT_EQ(member.body.size(), kAgents * (8 + pfcb::posting_wire_size(kM)));

  const Answer no_key = get({});
  // Not a member: a valid signature by a key the members file lacks.
  const Answer outsider = get(signed_headers(fp_, q, agents_[kAgents].sk.data(), read_time_us()));
  // A member's key, but the outsider cannot sign for it.
  httplib::Headers forged = signed_headers(fp_, q, agents_[kAgents].sk.data(), read_time_us());
  char member_hex[65];
  sodium_bin2hex(member_hex, sizeof member_hex, agents_[1].pk.data(), 32);
  forged.erase(pfcb::kReaderHeader);
  forged.emplace(pfcb::kReaderHeader, member_hex);
  const Answer forged_answer = get(forged);
  // A member's signature over another query (after=0 signed, after=1 asked).
  httplib::Client c("127.0.0.1", port);
  const auto other = c.Get(pfcb::list_path(query(1, 64)),
                           signed_headers(fp_, q, agents_[1].sk.data(), read_time_us()));
  // Stale: signed by a member, but 301 s old.
  const Answer stale =
      get(signed_headers(fp_, q, agents_[1].sk.data(), read_time_us() - 301ULL * 1000 * 1000));
  // Malformed: two of the three headers.
  httplib::Headers partial = signed_headers(fp_, q, agents_[1].sk.data(), read_time_us());
  partial.erase(pfcb::kReadSignatureHeader);
  const Answer malformed = get(partial);

  for (const Answer* a : {&no_key, &outsider, &forged_answer, &stale, &malformed}) {
    EXPECT_EQ(a->status, 403);
    EXPECT_EQ(a->body, no_key.body);  // the same answer whatever the reason
    EXPECT_FALSE(a->has_cursor);
  }
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 403);
  EXPECT_EQ(other->body, no_key.body);
  EXPECT_EQ(json::parse(no_key.body), json({{"error", "forbidden"}}));

  const json s = stats();
  EXPECT_EQ(s["fetches"], 1);
  EXPECT_EQ(s["postings_served"], kAgents);  // the member's read only
  EXPECT_EQ(s["fetches_forbidden"], 6);
  const json& by = s["forbidden_by_reason"];
  EXPECT_EQ(by["missing_auth"], 1);
  EXPECT_EQ(by["unknown_reader"], 1);
  EXPECT_EQ(by["bad_signature"], 2);
  EXPECT_EQ(by["stale"], 1);
  EXPECT_EQ(by["malformed_auth"], 1);

  // A POST says no more: a non-member's posting and a member's with a
  // broken signature get the same answer.
  std::string reply_outsider, reply_forged;
  EXPECT_EQ(post_bytes(port, seal(kAgents, 2), &reply_outsider), 400);
  std::vector<uint8_t> broken = seal(1, 2);
  broken.back() ^= 1;
  EXPECT_EQ(post_bytes(port, broken, &reply_forged), 400);
  EXPECT_EQ(reply_outsider, reply_forged);

  // No public route names a member: no fingerprint, no key, no index.
  httplib::Client pub("127.0.0.1", port);
  std::string everything;
  for (const char* route : {"/v1/pfcb/stats", "/metrics", "/readyz", "/healthz"}) {
    const auto r = pub.Get(route);
    ASSERT_TRUE(r) << route;
    everything += r->body;
  }
  EXPECT_NE(everything.find("p2b_relay_fetches_forbidden_total 6"), std::string::npos);
  EXPECT_NE(everything.find("reason=\"unknown_reader\""), std::string::npos);
  EXPECT_EQ(everything.find("by_sender"), std::string::npos);
  EXPECT_EQ(everything.find("members"), std::string::npos);
  for (int a = 0; a <= kAgents; ++a) {
    uint8_t fp[16];
    pfcb::sender_fingerprint(agents_[static_cast<std::size_t>(a)].pk.data(), fp);
    char hex[65];
    sodium_bin2hex(hex, sizeof hex, agents_[static_cast<std::size_t>(a)].pk.data(), 32);
    EXPECT_EQ(everything.find(pfcb::fingerprint_hex(fp)), std::string::npos) << a;
    EXPECT_EQ(everything.find(hex), std::string::npos) << a;
  }
  // The log names the reasons, never a key or a signature it was given.
  relay_.stop();
  const std::string text = log_text(0);
  EXPECT_NE(text.find("read_refused"), std::string::npos);
  EXPECT_NE(text.find("unknown_reader"), std::string::npos);
  EXPECT_EQ(text.find(member_hex), std::string::npos);
  EXPECT_EQ(text.find(forged.find(pfcb::kReadSignatureHeader)->second), std::string::npos);
}

// A member's signed read is good once: the same request again is refused,
// also after the relay restarted, and so is an older time; a new read goes on.
TEST_F(PfcbRelay, AMembersReplayedReadIsRefusedAcrossARestart) {
  start_relay();
  int port = relay_.port();
  ASSERT_EQ(post_bytes(port, seal(0, 1)), 200);
  const pfcb::ListQuery q = query(0, 64);
  const uint64_t t = read_time_us();
  const httplib::Headers once = signed_headers(fp_, q, agents_[3].sk.data(), t);
  const auto status = [&](const httplib::Headers& h, std::string* body = nullptr) {
    httplib::Client c("127.0.0.1", port);
    const auto r = c.Get(pfcb::list_path(q), h);
    if (r && body != nullptr) *body = r->body;
    return r ? r->status : -1;
  };
  std::string body;
  ASSERT_EQ(status(once, &body), 200);
  EXPECT_EQ(body.size(), 8 + pfcb::posting_wire_size(kM));
  EXPECT_EQ(status(once, &body), 403);
  EXPECT_EQ(body, R"({"error":"forbidden"})");
  EXPECT_EQ(status(signed_headers(fp_, q, agents_[3].sk.data(), t - 1)), 403);
  EXPECT_EQ(stats()["forbidden_by_reason"]["replay"], 2);
  // Another member's time is its own.
  EXPECT_EQ(status(signed_headers(fp_, q, agents_[2].sk.data(), t)), 200);
  relay_.stop();
  start_relay();
  port = relay_.port();
  EXPECT_EQ(status(once), 403);
  EXPECT_EQ(stats()["forbidden_by_reason"]["replay"], 1);
  EXPECT_EQ(status(signed_headers(fp_, q, agents_[3].sk.data(), read_time_us())), 200);
}

// A row whose bytes changed inside the file (past SQLite's page checks) is
// never served: it moves to the quarantine with its true reason, is counted,
// and /readyz names it; the rows around it are served as before.
TEST_F(PfcbRelay, ADamagedRowIsQuarantinedNotServed) {
  start_relay();
  int port = relay_.port();
  for (int a = 0; a < kAgents; ++a) ASSERT_EQ(post_bytes(port, seal(a, 1)), 200);
  ASSERT_EQ(fetch_all(port).size(), static_cast<std::size_t>(kAgents));
  relay_.stop();
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir_ / "relay.db").string().c_str(), &db), SQLITE_OK);
    // seq 2: one byte of the posting flipped; seq 3: its release column changed.
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT bytes FROM postings WHERE seq = 2", -1, &st, nullptr),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
    const auto* b = static_cast<const uint8_t*>(sqlite3_column_blob(st, 0));
    std::vector<uint8_t> bytes(b, b + sqlite3_column_bytes(st, 0));
    sqlite3_finalize(st);
    bytes[bytes.size() / 2] ^= 0x10;
    ASSERT_EQ(
        sqlite3_prepare_v2(db, "UPDATE postings SET bytes = ? WHERE seq = 2", -1, &st, nullptr),
        SQLITE_OK);
    sqlite3_bind_blob(st, 1, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
    ASSERT_EQ(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    ASSERT_EQ(sqlite3_exec(db, "UPDATE postings SET release = 7 WHERE seq = 3", nullptr, nullptr,
                           nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  start_relay();
  port = relay_.port();
  httplib::Client c("127.0.0.1", port);
  const auto before = c.Get("/readyz");
  ASSERT_TRUE(before);
  EXPECT_EQ(before->status, 200);  // nothing read yet: nothing known
  const auto served = fetch_all(port, 2);
  ASSERT_EQ(served.size(), 2U);
  EXPECT_EQ(served[0].first, 1U);
  EXPECT_EQ(served[1].first, 4U);
  json s = stats();
  EXPECT_EQ(s["quarantine"], 2);
  EXPECT_EQ(s["postings_quarantined"], 2);
  EXPECT_EQ(s["quarantined_by_reason"]["checksum_mismatch"], 2);
  EXPECT_EQ(s["stored"], 2);
  // Read again: the quarantined rows are gone from the postings, not counted twice.
  EXPECT_EQ(fetch_all(port, 64).size(), 2U);
  s = stats();
  EXPECT_EQ(s["postings_quarantined"], 2);
  const auto ready = c.Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 503);
  EXPECT_NE(ready->body.find("quarantine"), std::string::npos) << ready->body;
  EXPECT_NE(ready->body.find("checksum_mismatch 2"), std::string::npos) << ready->body;
  EXPECT_NE(ready->body.find("seq 2 3"), std::string::npos) << ready->body;
  const auto metrics = c.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("p2b_relay_quarantine 2"), std::string::npos);
  EXPECT_NE(metrics->body.find("reason=\"checksum_mismatch\"} 2"), std::string::npos);
  relay_.stop();
  EXPECT_NE(log_text(1).find("posting_quarantined"), std::string::npos);
}

}  // namespace
