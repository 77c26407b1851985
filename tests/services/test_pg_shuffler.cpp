// Shufflers on PostgreSQL as real processes: ingest-only nodes and batcher
// processes around one throwaway cluster, a real analyzer (SQLite, role
// all) behind them, and a ledger of every envelope offered and
// acknowledged, reconciled with what the analyzer applied: nothing
// acknowledged is lost and nothing is applied twice, across nodes, kills,
// a paused batcher and a key retirement.
#include <gtest/gtest.h>
#include <signal.h>
#include <sodium.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/pg/pg.hpp"
#include "ledger.hpp"
#include "pg_cluster.hpp"
#include "service_fixture.hpp"
#include "tcp_proxy.hpp"
#include "test_support.hpp"

namespace p2b_services {
namespace {

using p2b::proc::ServiceProcess;

class PgShuffler : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    PgCluster::Options options;
    // Only service processes die here, never the database: its own
    // durability is PostgreSQL's (test_pg_cluster kills it).
    options.fsync = false;
    options.max_connections = 200;
    cluster_ = PgCluster::start_primary(options).release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override {
    static int n = 0;
    name_ = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    const std::string db = "shuffler_" + std::to_string(++n);
    p2b::pg::Connection admin(cluster_->url("postgres"));
    admin.exec("CREATE DATABASE " + db + " OWNER p2b");
    url_ = cluster_->url(db);
    d_ = std::make_unique<Deployment>("pg_shuffler_" + name_);
    d_->start_analyzer(1);
  }
  void TearDown() override {
    for (auto& node : nodes_) {
      if (node->running()) {
        ::kill(node->pid(), SIGCONT);
        node->stop();
      }
    }
  }

  // A shuffler on the cluster: `batch` is its --batch-partitions.
  ServiceProcess& start_node(uint32_t threshold, const std::string& batch,
                             const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = d_->shuffler_args(threshold, d_->analyzer().url(), "0.5");
    for (std::size_t i = 0; i + 1 < args.size(); ++i) {
      if (args[i] == "--spool") {
        args[i] = "--store";
        args[i + 1] = url_;
      }
    }
    // A PostgreSQL spool takes no spool key (its volume is encrypted).
    const auto key = std::find(args.begin(), args.end(), "--spool-key");
    if (key != args.end()) args.erase(key, key + 2);
    args.insert(args.end(), {"--partitions", "4", "--batch-partitions", batch});
    for (std::size_t i = 0; i + 1 < extra.size(); i += 2) {
      const auto at = std::find(args.begin(), args.end(), extra[i]);
      if (at != args.end() && at + 1 != args.end()) {
        *(at + 1) = extra[i + 1];  // overrides the deployment's value
      } else {
        args.insert(args.end(), {extra[i], extra[i + 1]});
      }
    }
    nodes_.push_back(std::make_unique<ServiceProcess>());
    const std::string log =
        (d_->dir() / ("node" + std::to_string(nodes_.size()) + ".log")).string();
    nodes_.back()->start(P2B_SHUFFLER_BIN, args, log);
    return *nodes_.back();
  }
  std::string node_log(std::size_t i) const {
    std::ifstream in(d_->dir() / ("node" + std::to_string(i + 1) + ".log"));
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  int64_t scalar(const std::string& sql) const {
    p2b::pg::Connection c(url_);
    return c.query(sql).int8(0, 0);
  }
  // Every record closed into a batch or thresholded, and every batch
  // acknowledged by the analyzer.
  bool drained() const {
    try {
      return scalar("SELECT count(*) FROM shuffler_records") == 0 &&
             scalar("SELECT count(*) FROM shuffler_batches") == 0;
    } catch (const std::exception&) {
      return false;
    }
  }
  LedgerTally settle(const Ledger& ledger) {
    EXPECT_TRUE(eventually(60, [&] { return drained(); })) << "the spool did not drain";
    d_->analyzer().stop();
    return ledger.reconcile(d_->store_path());
  }

  static PgCluster* cluster_;
  std::string name_, url_;
  std::unique_ptr<Deployment> d_;
  std::vector<std::unique_ptr<ServiceProcess>> nodes_;
};

PgCluster* PgShuffler::cluster_ = nullptr;

// What every scenario with crashes must show: nothing acknowledged lost,
// nothing applied twice; a request cut off by a kill may have been stored
// without its 202, so applied may exceed acknowledged, never offered.
void expect_exact(const LedgerTally& t) {
  EXPECT_EQ(t.lost, 0U) << t.summary();
  EXPECT_EQ(t.duplicated, 0U) << t.summary();
  EXPECT_EQ(t.uncounted, 0U) << t.summary();
  EXPECT_EQ(t.quarantined, 0U) << t.summary();
  EXPECT_GE(t.applied, t.acknowledged) << t.summary();
  EXPECT_LE(t.applied, t.offered) << t.summary();
  std::printf("[ figure ] ledger: %s\n", t.summary().c_str());
}

std::vector<Envelope> crowd(uint32_t code, std::size_t n) {
  std::vector<Envelope> out;
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(seal(code, static_cast<uint32_t>(i % kActions), 0.25F));
  }
  return out;
}

uint32_t action_in_crowd(std::size_t i) {
  return static_cast<uint32_t>(i % kActions);
}

std::string test_key_fingerprint() {
  uint8_t fp[16];
  crypto_generichash(fp, sizeof fp, p2b_test::test_keys().shuffler_pk, 32, nullptr, 0);
  char hex[2 * sizeof fp + 1];
  sodium_bin2hex(hex, sizeof hex, fp, sizeof fp);
  return hex;
}

TEST_F(PgShuffler, ACrowdOfExactlyLSpreadOverFourIngestNodesIsReleasedOneOfLMinus1IsNot) {
  constexpr uint32_t kL = 8;
  // The analyzer refuses a batch signed with another crowd threshold than
  // its own (threshold_mismatch), so it runs at this test's l.
  d_->analyzer().stop();
  d_->start_analyzer(kL);
  std::vector<ServiceProcess*> ingest;
  ingest.reserve(4);
  for (int i = 0; i < 4; ++i) ingest.push_back(&start_node(kL, "none"));
  const std::vector<Envelope> released = crowd(3, kL);
  const std::vector<Envelope> withheld = crowd(5, kL - 1);
  Ledger ledger, below;
  for (std::size_t i = 0; i < released.size(); ++i) {
    ASSERT_EQ(ledger.post(ingest[i % 4]->port(), released, i, 1, action_in_crowd), 202);
  }
  for (std::size_t i = 0; i < withheld.size(); ++i) {
    ASSERT_EQ(below.post(ingest[i % 4]->port(), withheld, i, 1, action_in_crowd), 202);
  }
  // The same envelope at two more nodes counts once.
  ASSERT_EQ(ledger.post(ingest[1]->port(), released, 0, 1, action_in_crowd), 202);
  ASSERT_EQ(ledger.post(ingest[2]->port(), released, 0, 1, action_in_crowd), 202);
  EXPECT_EQ(scalar("SELECT count(*) FROM shuffler_records"), int64_t{2 * kL - 1});

  // Ingest nodes never close batches; a batcher process closes them all.
  start_node(kL, "all");
  const LedgerTally t = settle(ledger);
  expect_exact(t);
  EXPECT_EQ(t.applied, kL) << t.summary();
  // (Its tally's `duplicated` counts the released crowd's arms: the main
  // ledger's shows nothing was applied twice.)
  const LedgerTally b = below.reconcile(d_->store_path());
  EXPECT_EQ(b.applied, 0U) << "a crowd below l was released: " << b.summary();
}

TEST_F(PgShuffler, KillNineOfAnIngestNodeAndOfABatcherMidStreamLosesNothing) {
  ServiceProcess& in1 = start_node(1, "none");
  ServiceProcess& in2 = start_node(1, "none");
  ServiceProcess& batcher1 = start_node(1, "all", {"--lease-seconds", "3"});
  start_node(1, "all", {"--lease-seconds", "3"});
  const std::vector<Envelope> all = envelopes(1600);
  Ledger ledger;
  const int port1 = in1.port(), port2 = in2.port();
  std::atomic<std::size_t> sent{0};
  std::thread load([&] {
    for (std::size_t i = 0; i < all.size(); i += 20) {
      const int port = (i / 20) % 2 == 0 ? port1 : port2;
      ledger.post(port, all, i, 20);
      sent = i + 20;
    }
  });
  ASSERT_TRUE(eventually(60, [&] { return sent >= 400; }));
  in1.kill_hard();
  ASSERT_TRUE(eventually(60, [&] { return sent >= 800; }));
  batcher1.kill_hard();
  load.join();
  const LedgerTally t = settle(ledger);
  expect_exact(t);
  EXPECT_GE(t.acknowledged, 800U) << t.summary();  // node 2 took its half throughout
}

TEST_F(PgShuffler, ABatcherThatIngestsNothingClosesBySizeOnOthersRecords) {
  ServiceProcess& ingest = start_node(1, "none");
  // The timer alone would close nothing within the test's bounds.
  start_node(1, "all", {"--batch-size", "50", "--batch-seconds", "3600"});
  const std::vector<Envelope> all = envelopes(400);
  Ledger ledger;
  EXPECT_EQ(ledger.post_range(ingest.port(), all, 0, all.size(), 10), all.size());
  // Size triggers leave under batch_size unbatched in each of the 4
  // partitions, every closed batch acknowledged.
  const char* most_unbatched =
      "SELECT coalesce(max(n), 0)::int8 FROM (SELECT count(*) AS n FROM shuffler_records "
      "WHERE batch_id IS NULL GROUP BY part) AS p";
  EXPECT_TRUE(eventually(30,
                         [&] {
                           return scalar(most_unbatched) < 50 &&
                                  scalar("SELECT count(*) FROM shuffler_batches") == 0 &&
                                  scalar("SELECT count(*) FROM shuffler_records") <= 4 * 49;
                         }))
      << "unbatched per partition: " << scalar(most_unbatched);
}

TEST_F(PgShuffler, ABatcherPausedPastItsLeaseCannotCloseTwice) {
  ServiceProcess& ingest = start_node(1, "none");
  ServiceProcess& paused = start_node(1, "all", {"--lease-seconds", "2"});
  // It holds every partition before the second batcher exists.
  ASSERT_TRUE(eventually(20, [&] {
    return scalar("SELECT count(*) FROM shuffler_leases WHERE expires_at > now()") == 4;
  }));
  start_node(1, "all", {"--lease-seconds", "2"});
  // A third of the load before the pause, a third during it, a third
  // after the paused batcher woke up with its leases gone.
  const std::vector<Envelope> all = envelopes(1200);
  Ledger ledger;
  post_expecting_202(ledger, ingest.port(), std::vector<Envelope>(all.begin(), all.begin() + 400),
                     10);
  const int64_t tokens_before = scalar("SELECT sum(token)::int8 FROM shuffler_leases");
  ::kill(paused.pid(), SIGSTOP);
  EXPECT_EQ(ledger.post_range(ingest.port(), all, 400, 400, 10), 400U);
  // The paused one sleeps until the other batcher has taken all 4 partitions
  // over (its 2 s leases ran out): a takeover adds 1 to a partition's token
  // and a renewal keeps it, so the sum grows by 4. The event, not a clock.
  EXPECT_TRUE(eventually(60, [&] {
    return scalar("SELECT sum(token)::int8 FROM shuffler_leases") >= tokens_before + 4;
  }));
  ::kill(paused.pid(), SIGCONT);
  EXPECT_EQ(ledger.post_range(ingest.port(), all, 800, 400, 10), 400U);
  const LedgerTally t = settle(ledger);
  expect_exact(t);
  EXPECT_EQ(t.applied, t.acknowledged) << t.summary();  // nobody was killed
  EXPECT_EQ(t.acknowledged, all.size()) << t.summary();
}

TEST_F(PgShuffler, ARetiredKeyIsRefusedOnEveryNodeAndANodeWithItCannotStart) {
  ServiceProcess& in1 = start_node(1, "none");
  ServiceProcess& in2 = start_node(1, "all");
  const std::vector<Envelope> all = envelopes(64);
  Ledger ledger;
  post_expecting_202(ledger, in1.port(), all, 16);
  ASSERT_TRUE(eventually(60, [&] { return drained(); }));

  const std::string command = std::string(P2B_SHUFFLER_BIN) + " retire-key --store '" + url_ +
                              "' --fingerprint " + test_key_fingerprint() + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) output += buf;
  ASSERT_EQ(::pclose(pipe), 0) << output;
  // One replay row per envelope (schema 3).
  EXPECT_NE(output.find("dropped 64 replay entries"), std::string::npos) << output;

  // A replay and a fresh envelope under the retired key: 421 everywhere.
  Ledger refused;
  const std::vector<Envelope> fresh = envelopes(2);
  for (const ServiceProcess* node : {&in1, &in2}) {
    EXPECT_EQ(refused.post(node->port(), all, 0, 1), 421);
    EXPECT_EQ(refused.post(node->port(), fresh, 0, 1), 421);
  }
  in1.stop();
  EXPECT_THROW(start_node(1, "none"), std::exception);
  EXPECT_NE(node_log(2).find("key_retired"), std::string::npos) << node_log(2);
  const LedgerTally t = settle(ledger);
  expect_exact(t);
  EXPECT_EQ(t.applied, all.size()) << t.summary();
}

TEST_F(PgShuffler, KillNineOfThePrimaryWithTheStandbyPromotedLosesNothingAcknowledged) {
  // A primary with a synchronous standby: a commit, and so a 202, waits
  // for the standby to have the WAL. The nodes name both hosts and want
  // the writable one, as a deployment would.
  const std::unique_ptr<PgCluster> primary = PgCluster::start_primary();
  const std::unique_ptr<PgCluster> standby = primary->start_standby();
  {
    p2b::pg::Connection admin(primary->url("postgres"));
    admin.exec("ALTER SYSTEM SET synchronous_standby_names = '*'");
    admin.exec("SELECT pg_reload_conf()");
    ASSERT_TRUE(eventually(30, [&] {
      return admin.query("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'")
                 .int8(0, 0) == 1;
    }));
  }
  url_ = "postgresql://p2b@127.0.0.1:" + std::to_string(primary->port()) +
         ",127.0.0.1:" + std::to_string(standby->port()) + "/p2b?target_session_attrs=read-write";
  ServiceProcess& in1 = start_node(1, "none");
  ServiceProcess& in2 = start_node(1, "all", {"--lease-seconds", "3"});
  const std::vector<Envelope> all = envelopes(1200);
  Ledger ledger;
  EXPECT_EQ(ledger.post_range(in1.port(), all, 0, 400, 20), 400U);
  EXPECT_EQ(ledger.post_range(in2.port(), all, 400, 200, 20), 200U);
  const auto killed = std::chrono::steady_clock::now();
  primary->kill9();
  std::thread failover([&] {
    standby->promote();
    // The new primary has no standby of its own yet: commit locally.
    p2b::pg::Connection admin(standby->url("postgres"));
    admin.exec("ALTER SYSTEM SET synchronous_standby_names = ''");
    admin.exec("SELECT pg_reload_conf()");
  });
  // Requests during the failover may fail (503, not acknowledged); the
  // nodes reconnect to the promoted standby on their own.
  const std::vector<Envelope> probes = envelopes(300);
  std::size_t probe = 0;
  while (probe < probes.size() && ledger.post(in1.port(), probes, probe, 1) != 202) ++probe;
  const auto first_202 = std::chrono::steady_clock::now();
  failover.join();
  ASSERT_LT(probe, probes.size()) << "no 202 after the failover";
  std::printf(
      "[ figure ] failover: kill -9 of the primary to the first 202 on the standby: "
      "%lld ms (%zu requests refused meanwhile)\n",
      static_cast<long long>(
          std::chrono::duration_cast<std::chrono::milliseconds>(first_202 - killed).count()),
      probe);
  EXPECT_EQ(ledger.post_range(in1.port(), all, 600, 300, 20), 300U);
  EXPECT_EQ(ledger.post_range(in2.port(), all, 900, 300, 20), 300U);
  const LedgerTally t = settle(ledger);
  expect_exact(t);
  EXPECT_GE(t.acknowledged, 600U) << t.summary();
}

TEST_F(PgShuffler, ANodeBlackholedFromTheDatabaseRefusesAndRecoversOthersCarryOn) {
  TcpProxy proxy(cluster_->port());
  const std::string direct = url_;
  url_ = "postgresql://p2b@127.0.0.1:" + std::to_string(proxy.port()) +
         direct.substr(direct.rfind('/'));
  // Short session timeouts, so a blackholed call ends in about 2 s.
  ServiceProcess& cut = start_node(1, "none", {"--lease-seconds", "2"});
  url_ = direct;
  ServiceProcess& other = start_node(1, "all", {"--lease-seconds", "3"});
  const std::vector<Envelope> all = envelopes(600);
  Ledger ledger;
  post_expecting_202(ledger, cut.port(), std::vector<Envelope>(all.begin(), all.begin() + 200), 20);
  proxy.set_mode(TcpProxy::Mode::blackhole);
  const int status = ledger.post(cut.port(), all, 200, 20);
  EXPECT_NE(status, 202) << "a 202 without a database";
  httplib::Client probe("127.0.0.1", cut.port());
  probe.set_read_timeout(30);
  const auto ready = probe.Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 503) << ready->body;
  EXPECT_EQ(ledger.post_range(other.port(), all, 220, 180, 20), 180U);  // the rest carry on
  proxy.set_mode(TcpProxy::Mode::pass);
  EXPECT_TRUE(eventually(60, [&] { return ledger.post(cut.port(), all, 400, 20) == 202; }));
  EXPECT_EQ(ledger.post_range(cut.port(), all, 420, 180, 20), 180U);
  const LedgerTally t = settle(ledger);
  expect_exact(t);
  EXPECT_GE(t.acknowledged, 580U) << t.summary();
}

}  // namespace
}  // namespace p2b_services
