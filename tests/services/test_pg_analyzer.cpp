// The analyzer on PostgreSQL as real processes on a throwaway cluster: two
// workers and a publisher (docs/analyzer.md, "Roles"). Every scenario keeps
// a ledger of the records in the batches sent and reconciles it with the
// database: lost == 0 (every acknowledged record is applied, or refused or
// quarantined as its ack says) and duplicated == 0 (no arm counts a
// report twice).
#include <gtest/gtest.h>
#include <httplib.h>
#include <pb_decode.h>
#include <sodium.h>

#include <atomic>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "batch_opener.hpp"
#include "common/pg/pg.hpp"
#include "common/store_open.hpp"
#include "p2b.pb.h"
#include "pg_cluster.hpp"
#include "pg_store.hpp"
#include "proc/run_command.hpp"
#include "service_fixture.hpp"
#include "test_support.hpp"
#include "wire/batch_ack.hpp"
#include "wire/batch_format.hpp"
#include "wire/envelope_open.hpp"

namespace p2b_services {
namespace {

using p2b::proc::ServiceProcess;

// A throwaway cluster whose commits need not reach the disk.
p2b::proc::PgClusterOptions no_fsync() {
  p2b::proc::PgClusterOptions options;
  options.fsync = false;
  return options;
}

struct SignPair {
  uint8_t pk[crypto_sign_PUBLICKEYBYTES];
  uint8_t sk[crypto_sign_SECRETKEYBYTES];
};

std::string hex(const uint8_t* p, std::size_t n) {
  std::string out(2 * n + 1, '\0');
  sodium_bin2hex(out.data(), out.size(), p, n);
  out.pop_back();
  return out;
}

// The fingerprint of the deployment's analyzer box key: its epoch.
std::string analyzer_box_fp() {
  uint8_t fp[16];
  crypto_generichash(fp, sizeof fp, p2b_test::test_keys().analyzer_pk, 32, nullptr, 0);
  return hex(fp, sizeof fp);
}

// What one test sends: records by inner digest, with their arms, and the
// acks the workers gave.
class BatchLedger {
 public:
  // A batch of `n` new reports (codes i % kCodes, actions i % kActions).
  std::vector<uint8_t> make(std::size_t n) {
    p2b::server::Batch b;
    randombytes_buf(b.id.data(), b.id.size());
    b.thresholds = {1, 0};  // the workers' --threshold 1
    for (std::size_t i = 0; i < n; ++i) {
      const auto code = static_cast<uint32_t>(next_ % kCodes);
      const auto action = static_cast<uint32_t>(next_ % kActions);
      ++next_;
      const Envelope e = seal(code, action, 1.0F);
      p2b::server::BatchRecord r;
      r.crowd_id = code;
      r.inner = inner_of(e);
      b.records.push_back(r);
      records_[p2b::server::inner_digest(r.inner)] = action;
    }
    batches_[b.id] = b.records.size();
    last_ = b;
    return p2b::server::encode_signed_batch(b, p2b_test::test_keys().shuffler_sign_sk);
  }
  const p2b::server::Batch& last() const { return last_; }
  void acknowledged(const p2b::server::BatchAck& ack) { acked_[ack.id] = ack; }
  std::size_t acked_batches() const { return acked_.size(); }
  std::size_t acked_records() const {
    std::size_t n = 0;
    for (const auto& [id, ack] : acked_) n += ack.records;
    return n;
  }

  struct Tally {
    std::size_t acknowledged = 0, applied = 0, lost = 0, duplicated = 0;
  };
  // Reads the database: every acknowledged batch's records must be in
  // seen_inner (all valid here), and each arm's count must equal the
  // distinct digests applied to it.
  Tally reconcile(const std::string& url) const {
    p2b::pg::Connection conn(url);
    std::set<p2b::server::InnerDigest> seen;
    const p2b::pg::Result r = conn.query("SELECT digest FROM seen_inner");
    for (int i = 0; i < r.rows(); ++i) {
      p2b::server::InnerDigest d{};
      const std::vector<uint8_t> b = r.bytes(i, 0);
      std::copy(b.begin(), b.end(), d.begin());
      seen.insert(d);
    }
    std::map<uint32_t, uint64_t> applied_per_arm;
    Tally t;
    for (const auto& [digest, action] : records_) {
      if (seen.count(digest) > 0) {
        ++applied_per_arm[action];
        ++t.applied;
      }
    }
    for (const auto& [id, ack] : acked_) t.acknowledged += ack.applied;
    t.lost = t.acknowledged > t.applied ? t.acknowledged - t.applied : 0;
    const p2b::pg::Result arms =
        conn.query("SELECT arm, sum(count)::int8 FROM accumulators WHERE kind = 0 GROUP BY arm");
    for (int i = 0; i < arms.rows(); ++i) {
      const auto arm = static_cast<uint32_t>(arms.int4(i, 0));
      const auto count = static_cast<uint64_t>(arms.int8(i, 1));
      const uint64_t want = applied_per_arm[arm];
      if (count > want) t.duplicated += count - want;
      if (count < want) t.lost += want - count;
    }
    return t;
  }

 private:
  std::size_t next_ = 0;
  std::map<p2b::server::InnerDigest, uint32_t> records_;
  std::map<p2b::server::BatchId, std::size_t> batches_;
  std::map<p2b::server::BatchId, p2b::server::BatchAck> acked_;
  p2b::server::Batch last_;
};

// The deployment's keys split by role: the workers' directory holds the
// box keys and an ack key, never the model signing key.
class PgDeployment {
 public:
  explicit PgDeployment(const std::string& name) : d_(name) {
    cluster_ = PgCluster::start_primary();
    crypto_sign_keypair(ack_.pk, ack_.sk);
    const fs::path w = d_.dir() / "worker-keys";
    fs::create_directories(w);
    const auto& k = p2b_test::test_keys();
    Deployment::write_file(w / "analyzer.box.pk", k.analyzer_pk, sizeof k.analyzer_pk, 0644);
    Deployment::write_file(w / "analyzer.box.sk", k.analyzer_sk, sizeof k.analyzer_sk, 0600);
    Deployment::write_file(w / "analyzer.ack.pk", ack_.pk, sizeof ack_.pk, 0644);
    Deployment::write_file(w / "analyzer.ack.sk", ack_.sk, sizeof ack_.sk, 0600);
  }

  std::vector<std::string> args(const std::string& role, const fs::path& keys) const {
    std::vector<std::string> a{"--listen",       "127.0.0.1:0",
                               "--keys",         keys.string(),
                               "--shuffler-key", (d_.dir() / "keys/shuffler.sign.pk").string(),
                               "--codebook",     (d_.dir() / "codebook.p2bc").string(),
                               "--store",        cluster_->url(),
                               "--actions",      std::to_string(kActions),
                               "--threshold",    "1",
                               "--role",         role};
    a.insert(a.end(), {"--central-epsilon", central_epsilon});
    return a;
  }
  void start_worker(ServiceProcess* p, const std::string& name) const {
    p->start(P2B_ANALYZER_BIN, args("worker", d_.dir() / "worker-keys"),
             (d_.dir() / (name + ".log")).string());
  }
  void start_publisher(ServiceProcess* p, const std::string& name,
                       const std::string& seconds = "0.2") const {
    std::vector<std::string> a = args("publisher", d_.dir() / "keys");
    a.insert(a.end(), {"--publish-seconds", seconds});
    p->start(P2B_ANALYZER_BIN, a, (d_.dir() / (name + ".log")).string());
  }
  // A worker key directory with a new box key (and the same ack key).
  fs::path new_worker_keys(const std::string& name) {
    fs::path next = d_.dir() / name;
    fs::create_directories(next);
    uint8_t pk[32], sk[32];
    crypto_box_keypair(pk, sk);
    Deployment::write_file(next / "analyzer.box.pk", pk, sizeof pk, 0644);
    Deployment::write_file(next / "analyzer.box.sk", sk, sizeof sk, 0600);
    Deployment::write_file(next / "analyzer.ack.pk", ack_.pk, sizeof ack_.pk, 0644);
    Deployment::write_file(next / "analyzer.ack.sk", ack_.sk, sizeof ack_.sk, 0600);
    return next;
  }
  std::string url() const { return cluster_->url(); }
  const uint8_t* ack_pk() const { return ack_.pk; }
  // Every node's --central-epsilon: off unless a test turns it on, so the
  // ledger reconciles exact counts.
  std::string central_epsilon = "off";
  Deployment& deployment() { return d_; }

 private:
  Deployment d_;
  std::unique_ptr<PgCluster> cluster_;
  SignPair ack_{};
};

struct Answer {
  int status = -1;
  bool duplicate = false;
  std::optional<p2b::server::BatchAck> ack;
  std::string body;
};

Answer post(int port, const std::vector<uint8_t>& body, const uint8_t* ack_pk) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_connection_timeout(2);
  cli.set_read_timeout(20);
  Answer a;
  const auto r = cli.Post("/v1/batches", reinterpret_cast<const char*>(body.data()), body.size(),
                          "application/octet-stream");
  if (!r) return a;
  a.status = r->status;
  a.body = r->body;
  if (r->status != 200) return a;
  const nlohmann::json j = nlohmann::json::parse(r->body);
  a.duplicate = j.value("duplicate", false);
  const std::string ack_hex = j.at("ack").get<std::string>();
  std::vector<uint8_t> ack(ack_hex.size() / 2);
  std::size_t len = 0;
  if (sodium_hex2bin(ack.data(), ack.size(), ack_hex.data(), ack_hex.size(), nullptr, &len,
                     nullptr) != 0) {
    return a;
  }
  p2b::server::BatchAck out;
  if (p2b::server::verify_ack(ack.data(), len, ack_pk, &out) == p2b::server::AckCheck::ok) {
    a.ack = out;
  }
  return a;
}

// As the shuffler's sender: the batch goes to the next worker until one
// acks it (bounded: 50 attempts, 100 ms apart).
Answer send(const std::vector<int>& ports, std::size_t first, const std::vector<uint8_t>& body,
            const uint8_t* ack_pk) {
  Answer a;
  for (int attempt = 0; attempt < 50; ++attempt) {
    a = post(ports[(first + attempt) % ports.size()], body, ack_pk);
    if (a.status == 200 && a.ack) return a;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return a;
}

uint64_t served_version(int port) {
  httplib::Client cli("127.0.0.1", port);
  const auto r = cli.Get("/v1/model");
  if (!r || r->status != 200) return 0;
  return std::stoull(r->get_header_value("ETag").substr(1));
}

// Runs the analyzer binary to its exit, bounded by timeout(1) (124: it ran on).
int run_analyzer(std::vector<std::string> args) {
  args.insert(args.begin(), {"timeout", "30", P2B_ANALYZER_BIN});
  return p2b::proc::run_command(args, true);
}

int64_t query_int(const std::string& url, const std::string& sql) {
  p2b::pg::Connection conn(url);
  return conn.query(sql).int8(0, 0);
}

TEST(PgAnalyzer, TheSameBatchSentToBothWorkersIsAppliedOnceAndTheModelIsServedWithAnETag) {
  PgDeployment pg("pg_once");
  ServiceProcess publisher, w1, w2;
  pg.start_publisher(&publisher, "publisher");
  pg.start_worker(&w1, "w1");
  pg.start_worker(&w2, "w2");
  BatchLedger ledger;
  const std::vector<uint8_t> batch = ledger.make(48);
  Answer a1, a2;
  std::thread t1([&] { a1 = post(w1.port(), batch, pg.ack_pk()); });
  std::thread t2([&] { a2 = post(w2.port(), batch, pg.ack_pk()); });
  t1.join();
  t2.join();
  ASSERT_EQ(a1.status, 200) << a1.body;
  ASSERT_EQ(a2.status, 200) << a2.body;
  ASSERT_TRUE(a1.ack && a2.ack) << "both acks verify under the workers' ack key";
  EXPECT_NE(a1.duplicate, a2.duplicate) << "one applied it, the other answered a duplicate";
  EXPECT_EQ(a1.ack->applied, 48U);
  EXPECT_EQ(a2.ack->applied, 48U) << "a duplicate gets the same ack";
  ledger.acknowledged(*a1.ack);
  const Answer again = post(w2.port(), batch, pg.ack_pk());
  EXPECT_TRUE(again.duplicate);

  // A publication reaches every node; ETag and If-None-Match work.
  ASSERT_TRUE(eventually(10, [&] {
    return served_version(w1.port()) >= 1 && served_version(w2.port()) >= 1 &&
           served_version(publisher.port()) >= 1;
  }));
  httplib::Client cli("127.0.0.1", w2.port());
  const auto model = cli.Get("/v1/model");
  ASSERT_TRUE(model && model->status == 200);
  const std::string etag = model->get_header_value("ETag");
  const auto cached = cli.Get("/v1/model", {{"If-None-Match", etag}});
  ASSERT_TRUE(cached);
  EXPECT_EQ(cached->status, 304);
  const std::vector<double> stats =
      model_statistics(std::vector<uint8_t>(model->body.begin(), model->body.end()));
  EXPECT_FALSE(stats.empty());
  // The publisher takes no batches, and says so (the sender keeps it).
  EXPECT_EQ(post(publisher.port(), ledger.make(4), pg.ack_pk()).status, 503);

  const BatchLedger::Tally t = ledger.reconcile(pg.url());
  EXPECT_EQ(t.acknowledged, 48U);
  EXPECT_EQ(t.lost, 0U);
  EXPECT_EQ(t.duplicated, 0U);
  EXPECT_EQ(query_int(pg.url(), "SELECT sum(count)::int8 FROM accumulators"), 48);
}

TEST(PgAnalyzer, KillNineOfAWorkerAndOfThePublisherLosesNothingAndVersionsKeepCounting) {
  PgDeployment pg("pg_kill");
  ServiceProcess p1, p2, w1, w2;
  pg.start_publisher(&p1, "p1");
  ASSERT_TRUE(eventually(5, [&] {
    return query_int(pg.url(), "SELECT count(*)::int8 FROM pg_locks WHERE locktype = 'advisory'") >=
           1;
  })) << "the first publisher leads";
  pg.start_publisher(&p2, "p2");  // a hot standby
  pg.start_worker(&w1, "w1");
  pg.start_worker(&w2, "w2");
  BatchLedger ledger;
  std::vector<int> ports{w1.port(), w2.port()};
  for (int i = 0; i < 30; ++i) {
    const std::vector<uint8_t> body = ledger.make(20);
    if (i == 10) {
      // Killed while this batch is in flight: unacked, the sender retries
      // it at w2, which applies it or (if w1 committed first) acks it as a
      // duplicate.
      std::thread inflight([&] { post(w1.port(), body, pg.ack_pk()); });
      std::this_thread::sleep_for(std::chrono::milliseconds(3));
      w1.kill_hard();
      inflight.join();
    }
    const Answer a = send(ports, static_cast<std::size_t>(i), body, pg.ack_pk());
    ASSERT_TRUE(a.ack) << "batch " << i << ": " << a.status << " " << a.body;
    ledger.acknowledged(*a.ack);
  }
  ASSERT_TRUE(eventually(10, [&] { return served_version(w2.port()) >= 1; }));
  const uint64_t before =
      static_cast<uint64_t>(query_int(pg.url(), "SELECT max(version)::int8 FROM models"));
  p1.kill_hard();  // the standby takes over
  pg.start_worker(&w1, "w1-again");
  ports = {w1.port(), w2.port()};
  // A batch w1 may have applied before dying, sent again: a duplicate.
  for (int i = 0; i < 10; ++i) {
    const Answer a = send(ports, static_cast<std::size_t>(i), ledger.make(20), pg.ack_pk());
    ASSERT_TRUE(a.ack);
    ledger.acknowledged(*a.ack);
  }
  ASSERT_TRUE(eventually(15, [&] {
    return query_int(pg.url(), "SELECT max(version)::int8 FROM models") >
               static_cast<int64_t>(before) &&
           query_int(pg.url(), "SELECT max(reports)::int8 FROM models") ==
               static_cast<int64_t>(ledger.acked_records());
  })) << "the standby publisher took over and published everything";
  EXPECT_TRUE(eventually(5, [&] { return served_version(w1.port()) > before; }));
  const BatchLedger::Tally t = ledger.reconcile(pg.url());
  EXPECT_EQ(t.acknowledged, 800U);
  EXPECT_EQ(t.applied, 800U);
  EXPECT_EQ(t.lost, 0U);
  EXPECT_EQ(t.duplicated, 0U);
  // Versions count publications: consecutive, none skipped or repeated.
  const int64_t newest = query_int(pg.url(), "SELECT max(version)::int8 FROM models");
  const int64_t kept = query_int(pg.url(), "SELECT count(*)::int8 FROM models");
  const int64_t oldest = query_int(pg.url(), "SELECT min(version)::int8 FROM models");
  EXPECT_EQ(newest - oldest + 1, kept);
}

// Central DP on: kill -9 of the publisher after its first noisy model; the
// one started next keeps the stored seed, publishes the next version only,
// and the ledger holds each version once (test_pg_central_dp has the
// publication that dies before its commit).
TEST(PgAnalyzer, CentralDpAPublisherKilledAndRestartedKeepsItsSeedAndChargesEachVersionOnce) {
  PgDeployment pg("pg_dp_kill");
  pg.central_epsilon = "1";
  ServiceProcess p1, p2, w1;
  pg.start_publisher(&p1, "p1");
  pg.start_worker(&w1, "w1");
  BatchLedger ledger;
  ASSERT_TRUE(send({w1.port()}, 0, ledger.make(20), pg.ack_pk()).ack);
  ASSERT_TRUE(eventually(10, [&] { return served_version(w1.port()) >= 1; }));
  const auto seed = [&] {
    p2b::pg::Connection conn(pg.url());
    return conn.query("SELECT seed FROM central_dp").bytes(0, 0);
  };
  const std::vector<uint8_t> seed1 = seed();
  const std::vector<uint8_t> model1 = fetch_model(w1.port());
  p1.kill_hard();
  pg.start_publisher(&p2, "p2");
  ASSERT_TRUE(send({w1.port()}, 0, ledger.make(20), pg.ack_pk()).ack);
  ASSERT_TRUE(eventually(10, [&] { return served_version(w1.port()) >= 2; }));
  EXPECT_EQ(seed(), seed1) << "the restarted publisher draws the same node noise";
  EXPECT_EQ(query_int(pg.url(), "SELECT count(*)::int8 FROM central_dp_ledger"),
            query_int(pg.url(), "SELECT max(version)::int8 FROM models"));
  EXPECT_EQ(query_int(pg.url(), "SELECT count(DISTINCT version)::int8 FROM central_dp_ledger"),
            query_int(pg.url(), "SELECT count(*)::int8 FROM central_dp_ledger"));
  {
    p2b::pg::Connection conn(pg.url());
    const p2b::pg::Result v1 = conn.query("SELECT bundle FROM models WHERE version = 1");
    ASSERT_EQ(v1.rows(), 1);
    EXPECT_EQ(v1.bytes(0, 0), model1) << "version 1 was published once, never again";
  }
  // Every model states the guarantee in its header.
  const std::vector<uint8_t> model2 = fetch_model(w1.port());
  ASSERT_GT(model2.size(), 4U);
  p2b_v1_ModelHeader h = p2b_v1_ModelHeader_init_zero;
  pb_istream_t is = pb_istream_from_buffer(model2.data() + 4, model2.size() - 4);
  ASSERT_TRUE(pb_decode_delimited(&is, p2b_v1_ModelHeader_fields, &h));
  EXPECT_EQ(h.central_epsilon, 1.0);
  EXPECT_EQ(h.central_delta, 1e-6);
}

// A worker checks a batch's signed thresholds as a single analyzer does
// (batch_answers.hpp): another l is 409 threshold_mismatch before any state
// is read, and the batch with the worker's own settings is then applied in
// full (no id claimed, no replay digest consumed).
TEST(PgAnalyzer, AWorkerRefusesABatchThresholdedWithAnotherL) {
  PgDeployment pg("pg_thresholds");
  ServiceProcess w1;
  pg.start_worker(&w1, "w1");
  BatchLedger ledger;
  const std::vector<uint8_t> same = ledger.make(12);  // l = 1, as the worker
  p2b::server::Batch other = ledger.last();
  other.thresholds = {2, 0};
  const Answer refused = post(
      w1.port(), p2b::server::encode_signed_batch(other, p2b_test::test_keys().shuffler_sign_sk),
      pg.ack_pk());
  EXPECT_EQ(refused.status, 409);
  EXPECT_NE(refused.body.find("\"threshold_mismatch\""), std::string::npos) << refused.body;
  EXPECT_EQ(query_int(pg.url(), "SELECT count(*)::int8 FROM applied_batches"), 0);
  EXPECT_EQ(query_int(pg.url(), "SELECT count(*)::int8 FROM seen_inner"), 0);
  const Answer applied = post(w1.port(), same, pg.ack_pk());
  ASSERT_TRUE(applied.ack) << applied.body;
  EXPECT_FALSE(applied.duplicate);
  EXPECT_EQ(applied.ack->applied, 12U);
}

TEST(PgAnalyzer, RetiringTheBoxKeyDropsItsReplayStateAndRefusesItsReports) {
  PgDeployment pg("pg_retire");
  ServiceProcess w1;
  pg.start_worker(&w1, "w1");
  BatchLedger ledger;
  const Answer a = send({w1.port()}, 0, ledger.make(16), pg.ack_pk());
  ASSERT_TRUE(a.ack);
  ledger.acknowledged(*a.ack);
  const p2b::server::Batch applied = ledger.last();
  const std::string fp = analyzer_box_fp();
  EXPECT_EQ(query_int(pg.url(), "SELECT count(*)::int8 FROM seen_inner_" + fp), 16);
  const BatchLedger::Tally before = ledger.reconcile(pg.url());
  EXPECT_EQ(before.applied, 16U);
  EXPECT_EQ(before.lost, 0U);
  EXPECT_EQ(before.duplicated, 0U);
  EXPECT_EQ(w1.stop(), 0);

  EXPECT_EQ(run_analyzer({"retire-key", "--store", pg.url(), "--fingerprint", fp}), 0);
  EXPECT_EQ(query_int(pg.url(), "SELECT count(*)::int8 FROM pg_class WHERE relname = 'seen_inner_" +
                                    fp + "'"),
            0)
      << "the epoch's partition is dropped";
  EXPECT_EQ(query_int(pg.url(), "SELECT digests_dropped FROM retired_epochs"), 16);

  // A start with the retired key is refused (exit 4).
  const std::vector<std::string> args = pg.args("worker", pg.deployment().dir() / "worker-keys");
  EXPECT_EQ(run_analyzer(args), 4);

  // A worker on a new key refuses the retired key's reports as replays: not
  // applied, not quarantined.
  const fs::path next = pg.new_worker_keys("next-keys");
  ServiceProcess w2;
  w2.start(P2B_ANALYZER_BIN, pg.args("worker", next), (pg.deployment().dir() / "w2.log").string());
  p2b::server::Batch replay = applied;
  randombytes_buf(replay.id.data(), replay.id.size());
  const Answer r = post(
      w2.port(), p2b::server::encode_signed_batch(replay, p2b_test::test_keys().shuffler_sign_sk),
      pg.ack_pk());
  ASSERT_TRUE(r.ack) << r.status << " " << r.body;
  EXPECT_EQ(r.ack->applied, 0U);
  EXPECT_EQ(r.ack->quarantined, 0U);
  EXPECT_EQ(r.ack->refused[1], 16U) << "counted as replayed (docs/analyzer.md, Epochs)";
  EXPECT_EQ(query_int(pg.url(), "SELECT count(*)::int8 FROM quarantine"), 0);
  // The digests are gone on purpose; the statistics still count each once.
  EXPECT_EQ(query_int(pg.url(), "SELECT sum(count)::int8 FROM accumulators"), 16);
}

TEST(PgAnalyzer, ARealShufflerDeliversToAWorkerAndAcceptsItsAcks) {
  PgDeployment pg("pg_shuffler");
  ServiceProcess publisher, worker;
  pg.start_publisher(&publisher, "publisher");
  pg.start_worker(&worker, "worker");
  Deployment& d = pg.deployment();
  // The shuffler pins the workers' ack key, not the model key.
  std::vector<std::string> args = d.shuffler_args(1, worker.url(), "0.2");
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--analyzer-key")
      args[i + 1] = (d.dir() / "worker-keys/analyzer.ack.pk").string();
  }
  d.shuffler().start(P2B_SHUFFLER_BIN, args, (d.dir() / "shuffler.log").string());
  const std::vector<Envelope> all = envelopes(300);
  std::size_t acked = 0;
  for (std::size_t from = 0; from < all.size(); from += 30) {
    httplib::Client cli("127.0.0.1", d.shuffler().port());
    const auto r = cli.Post("/v1/reports", body_of(all, from, 30), "application/octet-stream");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 202) << r->body;
    acked += 30;
  }
  ASSERT_TRUE(eventually(20, [&] {
    return metric(d.shuffler().port(), "p2b_shuffler_spool_depth") == 0.0 &&
           query_int(pg.url(), "SELECT coalesce(sum(count), 0)::int8 FROM accumulators") ==
               static_cast<int64_t>(acked);
  })) << "every acknowledged envelope applied, and the shuffler deleted its batches on the acks";
  // lost 0, duplicated 0: each envelope's inner digest is stored once, and
  // the arms count exactly those.
  std::set<p2b::server::InnerDigest> sent;
  for (const Envelope& e : all) sent.insert(p2b::server::inner_digest(inner_of(e)));
  p2b::pg::Connection conn(pg.url());
  const p2b::pg::Result seen = conn.query("SELECT digest FROM seen_inner");
  std::size_t found = 0;
  for (int i = 0; i < seen.rows(); ++i) {
    p2b::server::InnerDigest dg{};
    const std::vector<uint8_t> b = seen.bytes(i, 0);
    std::copy(b.begin(), b.end(), dg.begin());
    found += sent.count(dg);
  }
  EXPECT_EQ(found, acked) << "lost = " << acked - found;
  EXPECT_EQ(static_cast<std::size_t>(seen.rows()), acked) << "duplicated";
  EXPECT_TRUE(eventually(10, [&] { return served_version(worker.port()) >= 1; }));
}

TEST(PgAnalyzer, RecordsAWorkerCannotOpenAreKeptAndAppliedByAWorkerThatCan) {
  PgDeployment pg("pg_quarantine");
  ServiceProcess other;
  other.start(P2B_ANALYZER_BIN, pg.args("worker", pg.new_worker_keys("other-keys")),
              (pg.deployment().dir() / "other.log").string());
  BatchLedger ledger;
  const Answer a = send({other.port()}, 0, ledger.make(16), pg.ack_pk());
  ASSERT_TRUE(a.ack) << a.status << " " << a.body;
  EXPECT_EQ(a.ack->applied, 0U);
  EXPECT_EQ(a.ack->quarantined, 16U) << "sealed to a key this worker lacks: kept";
  EXPECT_EQ(query_int(pg.url(), "SELECT count(*)::int8 FROM quarantine"), 16);
  EXPECT_EQ(other.stop(), 0);

  ServiceProcess w1;
  pg.start_worker(&w1, "w1");  // holds the key: releases the quarantine at start
  EXPECT_EQ(query_int(pg.url(), "SELECT count(*)::int8 FROM quarantine"), 0);
  EXPECT_EQ(query_int(pg.url(), "SELECT coalesce(sum(count), 0)::int8 FROM accumulators"), 16);
  const BatchLedger::Tally t = ledger.reconcile(pg.url());
  EXPECT_EQ(t.applied, 16U);
  EXPECT_EQ(t.lost, 0U);
  EXPECT_EQ(t.duplicated, 0U);
}

TEST(PgAnalyzer, RoleAllAppliesAndPublishesInOneProcessAndAcksWithTheModelKey) {
  PgDeployment pg("pg_all");
  ServiceProcess all;
  std::vector<std::string> args = pg.args("all", pg.deployment().dir() / "keys");
  args.insert(args.end(), {"--publish-seconds", "0.2"});
  all.start(P2B_ANALYZER_BIN, args, (pg.deployment().dir() / "all.log").string());
  BatchLedger ledger;
  const Answer a = post(all.port(), ledger.make(12), p2b_test::test_keys().verify_pk);
  ASSERT_TRUE(a.ack) << a.status << " " << a.body << " (the ack verifies with analyzer.sign.pk)";
  ledger.acknowledged(*a.ack);
  EXPECT_TRUE(eventually(10, [&] { return served_version(all.port()) >= 1; }));
  const BatchLedger::Tally t = ledger.reconcile(pg.url());
  EXPECT_EQ(t.applied, 12U);
  EXPECT_EQ(t.lost, 0U);
  EXPECT_EQ(t.duplicated, 0U);
  // A worker never holds the model signing key: refused at start as a
  // configuration error (exit 2, which the units do not restart).
  EXPECT_EQ(run_analyzer(pg.args("worker", pg.deployment().dir() / "keys")), 2);
}

// The store itself, against the cluster (no processes).
namespace an = p2b::analyzer;

an::StoreIdentity identity(uint32_t dim = 4) {
  return an::StoreIdentity{dim, dim, kActions, "default", std::string(32, 'a')};
}

// Verifies, opens and applies `b` as a worker would (x = e_0 for every
// report, so each arm's count is what matters).
an::PgApplied apply(an::PgAnalyzerStore* store, const p2b::server::Batch& b) {
  const auto& k = p2b_test::test_keys();
  const std::vector<uint8_t> bytes = p2b::server::encode_signed_batch(b, k.shuffler_sign_sk);
  p2b::server::VerifyKey vk{};
  EXPECT_TRUE(p2b::server::make_verify_key(k.shuffler_verify_pk, &vk));
  p2b::server::VerifiedBatch v;
  std::string err;
  EXPECT_EQ(p2b::server::verify_batch(bytes.data(), bytes.size(), &vk, 1, &v, &err),
            p2b::server::BatchCheck::ok)
      << err;
  p2b::server::BoxKey box{};
  p2b::server::make_box_key(k.analyzer_pk, k.analyzer_sk, &box);
  const an::KeyRing ring = an::KeyRing::from_keys({box}, k.sign_sk);
  const std::vector<an::OpenedRecord> records = an::open_records(v.batch, ring, kCodes, kActions);
  const auto screen = [&](const std::function<bool(const an::OpenedRecord&)>& seen) {
    return an::screen_opened(records, seen, p2b::common::ThresholdPolicy{1, 0});
  };
  const auto sums = [](const std::vector<an::ValidReport>& reports) {
    an::Statistics s(4, kActions);
    const double x[4] = {1, 0, 0, 0};
    for (const an::ValidReport& r : reports) s.add(r.action, x, r.reward);
    return s;
  };
  const auto counts = [&](const an::OpenedBatch& opened) {
    p2b::server::BatchAck c;
    c.records = static_cast<uint32_t>(b.records.size());
    c.applied = static_cast<uint32_t>(opened.valid.size());
    return c;
  };
  return store->apply_batch(v, records, screen, sums, counts, 1000, 1);
}

p2b::server::Batch batch_of(std::size_t n, std::size_t from) {
  p2b::server::Batch b;
  randombytes_buf(b.id.data(), b.id.size());
  for (std::size_t i = from; i < from + n; ++i) {
    const auto code = static_cast<uint32_t>(i % kCodes);
    p2b::server::BatchRecord r;
    r.crowd_id = code;
    r.inner = inner_of(seal(code, static_cast<uint32_t>(i % kActions), 1.0F));
    b.records.push_back(r);
  }
  return b;
}

an::Epoch test_epoch() {
  an::Epoch e{};
  crypto_generichash(e.data(), e.size(), p2b_test::test_keys().analyzer_pk, 32, nullptr, 0);
  return e;
}

TEST(PgStore, BindsItsIdentityOnceAndRefusesAnother) {
  const auto cluster = PgCluster::start_primary(no_fsync());
  an::PgAnalyzerStore first(cluster->url(), identity());
  EXPECT_NO_THROW(an::PgAnalyzerStore(cluster->url(), identity())) << "migrations are idempotent";
  EXPECT_THROW(an::PgAnalyzerStore(cluster->url(), identity(5)), p2b::common::StoreRefused);
}

TEST(PgStore, ConcurrentWorkersApplyABatchOnceAndRefuseItsReportsUnderAnotherId) {
  const auto cluster = PgCluster::start_primary(no_fsync());
  an::PgAnalyzerStore a(cluster->url(), identity());
  an::PgAnalyzerStore b(cluster->url(), identity());
  a.open_epochs({test_epoch()});
  const p2b::server::Batch batch = batch_of(40, 0);
  std::vector<an::PgApplied> done(4);
  std::vector<std::thread> workers;
  workers.reserve(4);
  for (int i = 0; i < 4; ++i) {
    workers.emplace_back([&, i] { done[i] = apply(i % 2 == 0 ? &a : &b, batch); });
  }
  for (std::thread& t : workers) t.join();
  int applied = 0;
  for (const an::PgApplied& d : done) {
    if (d.status == an::PgApplied::Status::applied) {
      ++applied;
      EXPECT_EQ(d.opened.valid.size(), 40U);
    } else {
      EXPECT_EQ(d.status, an::PgApplied::Status::known);
      EXPECT_EQ(d.known.counts.applied, 40U) << "the first application's counts";
    }
  }
  EXPECT_EQ(applied, 1);
  p2b::server::Batch replay = batch;
  randombytes_buf(replay.id.data(), replay.id.size());
  const an::PgApplied again = apply(&b, replay);
  ASSERT_EQ(again.status, an::PgApplied::Status::applied);
  EXPECT_TRUE(again.opened.valid.empty());
  EXPECT_EQ(again.opened.rejected[static_cast<int>(an::RejectReason::replayed)], 40U);
  EXPECT_EQ(a.sum_shards(an::ModelKind::private_reports, 4, kActions).total_count(), 40U);
  EXPECT_EQ(a.accumulated_reports(an::ModelKind::private_reports), 40U);
}

TEST(PgStore, OnePublisherLeadsAndVersionsFollowOneAnother) {
  const auto cluster = PgCluster::start_primary(no_fsync());
  auto first = std::make_unique<an::PgAnalyzerStore>(cluster->url(), identity());
  an::PgAnalyzerStore second(cluster->url(), identity());
  ASSERT_TRUE(first->try_lead());
  EXPECT_FALSE(second.try_lead());
  an::SignedModel m;
  m.version = 1;
  m.bundle = {1, 2, 3};
  first->store_model(an::ModelKind::private_reports, m, 7);
  EXPECT_THROW(first->store_model(an::ModelKind::private_reports, m, 7), std::exception)
      << "version 1 again";
  m.version = 3;
  EXPECT_THROW(first->store_model(an::ModelKind::private_reports, m, 7), std::exception)
      << "a skipped version";
  first.reset();  // its session ends, and the lock with it
  EXPECT_TRUE(eventually(5, [&] { return second.try_lead(); }));
  m.version = 2;
  EXPECT_NO_THROW(second.store_model(an::ModelKind::private_reports, m, 9));
  const std::optional<an::StoredModel> latest =
      second.latest_model(an::ModelKind::private_reports, 0, nullptr);
  ASSERT_TRUE(latest);
  EXPECT_EQ(latest->model.version, 2U);
  EXPECT_EQ(latest->reports, 9U);
  EXPECT_EQ(latest->model.bundle, m.bundle);
}

}  // namespace
}  // namespace p2b_services
