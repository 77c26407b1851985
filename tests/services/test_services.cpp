// Reliability of the services as real processes on loopback: crash safety
// under kill -9, thresholding and replays, and bad input. Every wait here is
// bounded; a stuck service fails the test instead of hanging it.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>

#include "envelope_forge.hpp"
#include "exposition_check.hpp"
#include "file_scan.hpp"
#include "ledger.hpp"
#include "model_support.hpp"
#include "p2b/codebook_format.hpp"
#include "p2b/envelope.hpp"
#include "proc/service_process.hpp"
#include "service_fixture.hpp"
#include "test_support.hpp"
#include "wire/batch_ack.hpp"
#include "wire/batch_format.hpp"
#include "wire/envelope_open.hpp"

namespace fs = std::filesystem;

namespace {

using namespace p2b_services;

constexpr int kInner = static_cast<int>(p2b::kInnerBytes);

const uint8_t* k_shuffler_pk() {
  return p2b_test::test_keys().shuffler_pk;
}

std::string forged_body(const p2b_test::OuterEnvelope& env) {
  return std::string(reinterpret_cast<const char*>(env.data()), env.size());
}

TEST(Services, ShufflerKilledMidStreamLosesAndDuplicatesNothing) {
  Deployment d("crash-shuffler");
  d.start_analyzer();
  d.start_shuffler(1, d.analyzer().url());
  const std::vector<Envelope> all = envelopes(10000);
  const std::size_t per_post = 50;
  std::vector<bool> acked(all.size() / per_post, false);
  std::atomic<bool> killed{false};
  std::atomic<std::size_t> acks{0};
  Ledger ledger;

  // Post everything while the shuffler is killed once a third of the posts
  // were acknowledged: the kill waits on that count, never on the clock.
  std::thread killer([&] {
    for (int i = 0; i < 60000 && acks < acked.size() / 3; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    d.shuffler().kill_hard();
    killed = true;
  });
  for (std::size_t r = 0; r < acked.size(); ++r) {
    if (killed) break;
    acked[r] = ledger.post(d.shuffler().port(), all, r * per_post, per_post) == 202;
    if (acked[r]) ++acks;
  }
  killer.join();
  const auto acked_before = static_cast<std::size_t>(std::count(acked.begin(), acked.end(), true));
  ASSERT_GT(acked_before, 0U);
  ASSERT_LT(acked_before, acked.size()) << "the kill came too late to test anything";

  // Restart on the same spool; devices re-send whatever got no 202.
  d.start_shuffler(1, d.analyzer().url());
  for (std::size_t r = 0; r < acked.size(); ++r) {
    if (acked[r]) continue;
    ASSERT_EQ(ledger.post(d.shuffler().port(), all, r * per_post, per_post), 202)
        << "request " << r;
  }
  ASSERT_TRUE(eventually(60, [&] {
    return metric(d.analyzer().port(), "p2b_analyzer_records_applied_total") >=
           static_cast<double>(all.size());
  }));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // nothing more may arrive
  EXPECT_EQ(metric(d.analyzer().port(), "p2b_analyzer_records_applied_total"),
            static_cast<double>(all.size()))
      << "every envelope reaches the analyzer exactly once";
  EXPECT_EQ(d.shuffler().stop(), 0);
  EXPECT_EQ(d.analyzer().stop(), 0);
  const LedgerTally t = ledger.reconcile(d.store_path());
  EXPECT_EQ(t.acknowledged, all.size());
  EXPECT_EQ(t.lost, 0U) << t.summary();
  EXPECT_EQ(t.duplicated, 0U) << t.summary();
  EXPECT_EQ(t.applied, all.size()) << t.summary();
  std::printf(
      "[ figure ] %zu of %zu requests acknowledged before kill -9; ledger after restart: %s\n",
      acked_before, acked.size(), t.summary().c_str());
}

TEST(Services, AnalyzerKilledDuringABatchEndsWithTheSameModel) {
  const std::vector<Envelope> all = envelopes(4000);
  auto run = [&](const char* name, bool crash) {
    Deployment d(name);
    d.start_analyzer();
    d.start_shuffler(1, d.analyzer().url());
    httplib::Client cli("127.0.0.1", d.shuffler().port());
    for (std::size_t r = 0; r < all.size(); r += 200) {
      const auto res = cli.Post("/v1/reports", body_of(all, r, 200), "application/octet-stream");
      EXPECT_TRUE(res && res->status == 202);
    }
    if (crash) {
      // kill -9 the analyzer every 40 ms for 2 s, restarting it on the same
      // port each time: the batch (which closes after 1 s) is received,
      // decrypted and committed somewhere in that window, so kills land
      // before, during and after its transaction.
      const int port = d.analyzer().port();
      for (int i = 0; i < 50; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(40));
        d.analyzer().kill_hard();
        d.analyzer().start(P2B_ANALYZER_BIN, d.analyzer_args(1, port),
                           (d.dir() / "analyzer.log").string());
      }
    }
    EXPECT_TRUE(eventually(60, [&] {
      return metric(d.shuffler().port(), "p2b_shuffler_spool_depth") == 0.0 &&
             metric(d.shuffler().port(), "p2b_shuffler_forwarded_total") >= 1.0;
    }));
    const std::vector<uint8_t> model = fetch_model(d.analyzer().port());
    EXPECT_FALSE(model.empty());
    // Every batch applied exactly once: the model's version is the number
    // of batches the shuffler had acknowledged (usually 1; 2 when a loaded
    // machine posts across the 1 s batch boundary).
    // The shuffler counts a batch just after deleting it, so the two are
    // compared until they agree (a lasting mismatch still fails).
    double batches = 0;
    std::string etag;
    httplib::Client cli_a("127.0.0.1", d.analyzer().port());
    EXPECT_TRUE(eventually(10,
                           [&] {
                             batches = metric(d.shuffler().port(), "p2b_shuffler_batches_total");
                             const auto head = cli_a.Get("/v1/model");
                             etag = head ? head->get_header_value("ETag") : "no answer";
                             return batches >= 1.0 &&
                                    etag == "\"" + std::to_string(static_cast<int>(batches)) + "\"";
                           }))
        << name << ": " << etag << " after " << batches << " batches";
    std::vector<double> stats = model_statistics(model);
    d.shuffler().stop();
    d.analyzer().stop();
    return stats;
  };
  const std::vector<double> clean = run("analyzer-clean", false);
  const std::vector<double> crashed = run("analyzer-crash", true);
  ASSERT_EQ(clean.size(), crashed.size());
  for (std::size_t i = 0; i < clean.size(); ++i) {
    ASSERT_NEAR(clean[i], crashed[i], 1e-6 * (1.0 + std::fabs(clean[i]))) << i;
  }
}

TEST(Services, BelowThresholdNeverReachesTheAnalyzerAndReplaysCountOnce) {
  Deployment d("threshold");
  d.start_analyzer(5);
  d.start_shuffler(5, d.analyzer().url());
  std::vector<Envelope> batch;
  batch.reserve(9);
  for (int i = 0; i < 4; ++i) batch.push_back(seal(3, 1, 1.0F));  // crowd 3: 4 < l = 5
  for (int i = 0; i < 5; ++i) batch.push_back(seal(7, 2, 1.0F));  // crowd 7: 5 = l
  httplib::Client cli("127.0.0.1", d.shuffler().port());
  auto res = cli.Post("/v1/reports", body_of(batch, 0, batch.size()), "application/octet-stream");
  ASSERT_TRUE(res && res->status == 202);
  res = cli.Post("/v1/reports", body_of(batch, 0, 1), "application/octet-stream");  // replay
  ASSERT_TRUE(res && res->status == 202);
  EXPECT_EQ(metric(d.shuffler().port(), "p2b_shuffler_duplicates_total"), 1.0);
  ASSERT_TRUE(eventually(20, [&] {
    return metric(d.analyzer().port(), "p2b_analyzer_records_applied_total") >= 5.0;
  }));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(metric(d.analyzer().port(), "p2b_analyzer_records_applied_total"), 5.0);
  EXPECT_EQ(metric(d.shuffler().port(), "p2b_shuffler_thresholded_total"), 4.0);
  // Only crowd 7 reached the model: arm 1 (crowd 3's action) is still the prior.
  const std::vector<double> stats = model_statistics(fetch_model(d.analyzer().port()));
  EXPECT_DOUBLE_EQ(stats[1 * kDim * kDim], 1.0) << "arm 1 learned from a thresholded crowd";
  EXPECT_GT(stats[2 * kDim * kDim], 1.0);
}

// Nothing at rest, with the real services started under umask 0: every
// store file is owner-only; the inner ciphertexts are never in the spool's
// files in clear (it is sealed: test_spool_encryption.cpp); and once a batch
// is forwarded (crowd 7) or thresholded away (crowd 3), no sealed row of it
// is left in the spool's database, WAL or shared-memory file, nor an inner
// ciphertext in the analyzer's. The control finds the sealed rows in the
// spool while they legitimately wait there.
TEST(Services, NoForwardedOrThresholdedReportStaysOnDisk) {
  Deployment d("at_rest");
  const mode_t old_umask = ::umask(0);
  d.start_analyzer(5);
  d.start_shuffler(5, d.analyzer().url(), "3600");
  std::vector<Envelope> sent;
  sent.reserve(9);
  for (int i = 0; i < 4; ++i) sent.push_back(seal(3, 1, 1.0F));  // crowd 3: 4 < l = 5
  for (int i = 0; i < 5; ++i) sent.push_back(seal(7, 2, 1.0F));  // crowd 7: 5 = l
  httplib::Client cli("127.0.0.1", d.shuffler().port());
  auto res = cli.Post("/v1/reports", body_of(sent, 0, sent.size()), "application/octet-stream");
  ASSERT_TRUE(res && res->status == 202);
  const std::string spool = (d.dir() / "shuffler.db").string();
  const std::string store = (d.dir() / "analyzer.db").string();
  std::vector<std::vector<uint8_t>> inners;
  for (const Envelope& e : sent) {
    const p2b::server::InnerCiphertext inner = inner_of(e);
    inners.emplace_back(inner.begin(), inner.end());
    EXPECT_FALSE(p2b_test::store_contains(spool, inners.back())) << "sealed while spooled";
  }
  std::vector<std::vector<uint8_t>> sealed_rows;
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open_v2(spool.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* q = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(raw, "SELECT sealed FROM records_sealed", -1, &q, nullptr),
              SQLITE_OK);
    while (sqlite3_step(q) == SQLITE_ROW) {
      const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(q, 0));
      sealed_rows.emplace_back(p, p + sqlite3_column_bytes(q, 0));
    }
    sqlite3_finalize(q);
    sqlite3_close(raw);
  }
  ASSERT_EQ(sealed_rows.size(), sent.size());
  for (const auto& row : sealed_rows) {
    ASSERT_TRUE(p2b_test::store_contains(spool, row)) << "control: spooled";
  }

  // The same spool, now batching every second.
  ASSERT_EQ(d.shuffler().stop(), 0);
  d.start_shuffler(5, d.analyzer().url(), "1");
  ASSERT_TRUE(eventually(30, [&] {
    return metric(d.analyzer().port(), "p2b_analyzer_records_applied_total") >= 5.0 &&
           metric(d.shuffler().port(), "p2b_shuffler_spool_depth") == 0.0;
  }));
  ::umask(old_umask);
  EXPECT_EQ(metric(d.shuffler().port(), "p2b_shuffler_thresholded_total"), 4.0);
  // The spool's checkpointer empties its WAL right after the close and the
  // acknowledgement, off the request path (docs/shuffler.md): a bounded wait.
  EXPECT_TRUE(eventually(10, [&] {
    for (const auto& row : sealed_rows) {
      if (p2b_test::store_contains(spool, row)) return false;
    }
    return true;
  }));
  for (std::size_t i = 0; i < sealed_rows.size(); ++i) {
    EXPECT_FALSE(p2b_test::store_contains(spool, sealed_rows[i])) << "row " << i << " in the spool";
  }
  for (std::size_t i = 0; i < inners.size(); ++i) {
    EXPECT_FALSE(p2b_test::store_contains(spool, inners[i])) << "report " << i << " in the spool";
    EXPECT_FALSE(p2b_test::store_contains(store, inners[i])) << "report " << i << " in the store";
  }
  for (const std::string& db : {spool, store}) {
    for (const std::string& f : p2b_test::store_files(db)) {
      if (!fs::exists(f)) continue;
      EXPECT_EQ(fs::status(f).permissions() & fs::perms::all,
                fs::perms::owner_read | fs::perms::owner_write)
          << f;
    }
  }
}

TEST(Services, BadInputGetsItsOwn4xxStoresNothingAndTheServiceStaysUp) {
  Deployment d("bad-input");
  d.start_shuffler(1, "http://127.0.0.1:9");  // nothing listens: nothing is forwarded
  httplib::Client cli("127.0.0.1", d.shuffler().port());
  const Envelope good = seal(1, 1, 1.0F);
  Envelope tampered = good;
  tampered[100] ^= 1;
  Envelope unknown = good;
  unknown[0] ^= 1;  // the cleartext fingerprint names no key of ours
  const std::string garbage(P2B_ENVELOPE_BYTES * 2, 'x');
  const std::string oversized(4 << 20, '\0');
  const struct {
    const char* what;
    std::string body;
    int status;
  } cases[] = {
      {"empty", "", 400},
      {"truncated", body_of({good}, 0, 1).substr(0, 207), 400},
      {"garbage", garbage, 421},
      {"oversized", oversized, 413},
      {"unknown key", body_of({unknown}, 0, 1), 421},
      {"tampered", body_of({tampered}, 0, 1), 422},
      {"good then tampered", body_of({good, tampered}, 0, 2), 422},
      {"no inner field", forged_body(p2b_test::forge_outer(k_shuffler_pk(), 1, nullptr, -1)), 422},
  };
  for (const auto& c : cases) {
    const auto res = cli.Post("/v1/reports", c.body, "application/octet-stream");
    ASSERT_TRUE(res) << c.what << ": no answer";
    EXPECT_EQ(res->status, c.status) << c.what;
    EXPECT_EQ(metric(d.shuffler().port(), "p2b_shuffler_spool_depth"), 0.0) << c.what;
    const auto health = cli.Get("/healthz");
    ASSERT_TRUE(health && health->status == 200) << "down after " << c.what;
  }
  const auto res = cli.Post("/v1/reports", body_of({good}, 0, 1), "application/octet-stream");
  ASSERT_TRUE(res && res->status == 202);
  EXPECT_EQ(metric(d.shuffler().port(), "p2b_shuffler_spool_depth"), 1.0);
}

// A stand-in "analyzer" on loopback that answers every batch 200 but never
// with a valid ack: no ack at all, then one signed by another key.
void answer_without_valid_ack(const httplib::Request& req, httplib::Response& res) {
  static std::atomic<int> calls{0};
  if (calls.fetch_add(1) % 2 == 0) {
    res.set_content("{\"applied\":1}", "application/json");
    return;
  }
  uint8_t pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
  crypto_sign_keypair(pk, sk);
  p2b::server::BatchAck ack;
  const auto* data = reinterpret_cast<const uint8_t*>(req.body.data());
  std::copy(data + 8, data + 24, ack.id.begin());
  ack.digest = p2b::server::batch_digest(data, req.body.size());
  const std::vector<uint8_t> bytes = p2b::server::encode_signed_ack(ack, sk);
  res.set_content(
      "{\"applied\":1,\"ack\":\"" + p2b::server::hex_of(bytes.data(), bytes.size()) + "\"}",
      "application/json");
}

std::vector<uint8_t> sign_batch(const p2b::server::Batch& b, const uint8_t* sign_sk) {
  return p2b::server::encode_signed_batch(b, sign_sk);
}

httplib::Result post_batch(int port, const std::vector<uint8_t>& body) {
  httplib::Client cli("127.0.0.1", port);
  return cli.Post("/v1/batches", reinterpret_cast<const char*>(body.data()), body.size(),
                  "application/octet-stream");
}

TEST(Services, OnlyTheShufflersSignedBatchesCountAndOnlyAValidAckDeletesThem) {
  Deployment d("hops");
  StandInAnalyzer fake(answer_without_valid_ack);
  d.start_shuffler(1, "http://127.0.0.1:" + std::to_string(fake.port()));
  std::vector<Envelope> reports;
  for (uint32_t i = 0; i < 4; ++i) reports.push_back(seal(2, 3, 1.0F));
  httplib::Client to_shuffler("127.0.0.1", d.shuffler().port());
  const auto res = to_shuffler.Post("/v1/reports", body_of(reports, 0, reports.size()),
                                    "application/octet-stream");
  ASSERT_TRUE(res && res->status == 202);
  // The fake answers 200 without a valid ack, at least twice: the batch stays.
  ASSERT_TRUE(eventually(30, [&] { return fake.bodies().size() >= 2; }));
  EXPECT_TRUE(eventually(
      5, [&] { return metric(d.shuffler().port(), "p2b_shuffler_bad_acks_total") >= 2.0; }));
  EXPECT_EQ(metric(d.shuffler().port(), "p2b_shuffler_spool_depth"), 4.0);
  EXPECT_EQ(metric(d.shuffler().port(), "p2b_shuffler_forwarded_total"), 0.0);
  const std::vector<std::string> sent = fake.bodies();
  for (const std::string& b : sent) EXPECT_EQ(b, sent[0]) << "a re-sent batch is the same bytes";
  p2b::server::VerifyKey shuffler_key{};
  p2b::server::make_verify_key(p2b_test::test_keys().shuffler_verify_pk, &shuffler_key);
  p2b::server::VerifiedBatch real;
  std::string err;
  ASSERT_EQ(p2b::server::verify_batch(reinterpret_cast<const uint8_t*>(sent[0].data()),
                                      sent[0].size(), &shuffler_key, 1, &real, &err),
            p2b::server::BatchCheck::ok)
      << err;
  ASSERT_EQ(real.batch.records.size(), 4U);
  EXPECT_EQ(real.batch.records[0].crowd_id, 2U);
  fake.stop();

  // The real analyzer, on another port for now. An attacker who learned the
  // batch id tries to claim it and to apply one report per code.
  d.start_analyzer();
  const int port = d.analyzer().port();
  p2b::server::Batch forged;
  forged.id = real.batch.id;
  for (uint32_t c = 0; c < kCodes; ++c) {
    const Envelope e = seal(c, 7, 1.0F);
    forged.records.push_back({c, inner_of(e)});
  }
  uint8_t pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
  crypto_sign_keypair(pk, sk);
  auto r = post_batch(port, sign_batch(forged, sk));  // a key nobody pinned
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(r->body.rfind("{\"error\":\"unknown_signer\"", 0), 0U) << r->body;
  std::vector<uint8_t> bytes = sign_batch(forged, sk);
  std::copy(shuffler_key.fp, shuffler_key.fp + 16, bytes.begin() + 28);  // claims the pinned key
  r = post_batch(port, bytes);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  EXPECT_EQ(r->body.rfind("{\"error\":\"bad_signature\"", 0), 0U) << r->body;
  forged.records.clear();  // an empty "early" batch under the real id
  r = post_batch(port, sign_batch(forged, sk));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(metric(port, "p2b_analyzer_model_version"), 0.0);
  EXPECT_EQ(metric(port, "p2b_analyzer_batches_refused_total"), 3.0);
  EXPECT_TRUE(fetch_model(port).empty());
  httplib::Client to_analyzer("127.0.0.1", port);
  const auto health = to_analyzer.Get("/healthz");
  ASSERT_TRUE(health && health->status == 200);
  d.analyzer().stop();

  // Now the real analyzer where the shuffler sends: the batch is delivered
  // under its own id, applied, acknowledged and only then deleted.
  d.start_analyzer(1, fake.port());
  ASSERT_TRUE(eventually(
      30, [&] { return metric(d.shuffler().port(), "p2b_shuffler_spool_depth") == 0.0; }));
  EXPECT_EQ(metric(d.analyzer().port(), "p2b_analyzer_records_applied_total"), 4.0);
  EXPECT_EQ(metric(d.analyzer().port(), "p2b_analyzer_model_version"), 1.0);
  EXPECT_EQ(metric(d.shuffler().port(), "p2b_shuffler_forwarded_total"), 4.0);
  const std::vector<uint8_t> model = fetch_model(d.analyzer().port());
  const std::vector<double> stats = model_statistics(model);
  EXPECT_DOUBLE_EQ(stats[7 * kDim * kDim], 1.0) << "arm 7 learned from the forged batch";
  EXPECT_GT(stats[3 * kDim * kDim], 1.0);

  // The same id with other contents, even properly signed: 409, no change.
  p2b::server::Batch other = real.batch;
  other.records.pop_back();
  r = post_batch(d.analyzer().port(), sign_batch(other, p2b_test::test_keys().shuffler_sign_sk));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 409);
  EXPECT_EQ(r->body.rfind("{\"error\":\"batch_conflict\"", 0), 0U) << r->body;
  EXPECT_EQ(fetch_model(d.analyzer().port()), model);
  // The real bytes again: a duplicate with the same ack.
  r = post_batch(d.analyzer().port(), std::vector<uint8_t>(sent[0].begin(), sent[0].end()));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("\"duplicate\":true"), std::string::npos) << r->body;
  EXPECT_EQ(fetch_model(d.analyzer().port()), model);
  EXPECT_EQ(d.shuffler().stop(), 0);
  EXPECT_EQ(d.analyzer().stop(), 0);
}

TEST(Services, GarbageAndReplaysCannotFillAVictimsCrowd) {
  Deployment d("crowds");
  d.start_analyzer(3);
  d.start_shuffler(3, d.analyzer().url());
  httplib::Client to_shuffler("127.0.0.1", d.shuffler().port());
  // The victim's lone report: code 3, action 1.
  const Envelope victim = seal(3, 1, 1.0F);
  // The attacker's padding for crowd 3: random bytes that name no analyzer key, and a
  // valid report of another code that claims crowd 3.
  std::array<uint8_t, p2b::kInnerBytes> junk{};
  randombytes_buf(junk.data(), junk.size());
  const p2b::server::InnerCiphertext other_code = inner_of(seal(5, 2, 1.0F));
  std::string body = body_of({victim}, 0, 1);
  body += forged_body(p2b_test::forge_outer(k_shuffler_pk(), 3, junk.data(), kInner));
  body += forged_body(p2b_test::forge_outer(k_shuffler_pk(), 3, other_code.data(), kInner));
  // An honest crowd 7 of l reports, so a model is signed.
  const std::vector<Envelope> honest = {seal(7, 2, 0.5F), seal(7, 2, 0.5F), seal(7, 2, 0.5F)};
  body += body_of(honest, 0, honest.size());
  auto res = to_shuffler.Post("/v1/reports", body, "application/octet-stream");
  ASSERT_TRUE(res && res->status == 202) << (res ? res->body : "");
  EXPECT_EQ(res->body, "{\"accepted\":6,\"duplicates\":0}");
  // The victim's inner re-sealed in a fresh outer layer: a duplicate.
  const p2b::server::InnerCiphertext victim_inner = inner_of(victim);
  res = to_shuffler.Post(
      "/v1/reports",
      forged_body(p2b_test::forge_outer(k_shuffler_pk(), 3, victim_inner.data(), kInner)),
      "application/octet-stream");
  ASSERT_TRUE(res && res->status == 202);
  EXPECT_EQ(res->body, "{\"accepted\":0,\"duplicates\":1}");
  EXPECT_EQ(metric(d.shuffler().port(), "p2b_shuffler_duplicates_total"), 1.0);

  // The shuffler counted 3 in crowd 3 and released it; the analyzer did not.
  ASSERT_TRUE(eventually(30, [&] {
    return metric(d.analyzer().port(), "p2b_analyzer_batches_applied_total") >= 1.0;
  }));
  // The shuffler counts a batch as forwarded just after the analyzer's ack.
  EXPECT_TRUE(eventually(10, [&] {
    return metric(d.shuffler().port(), "p2b_shuffler_forwarded_total") == 6.0;
  })) << metric(d.shuffler().port(), "p2b_shuffler_forwarded_total");
  const int a = d.analyzer().port();
  EXPECT_EQ(metric(a, "p2b_analyzer_records_applied_total"), 3.0);
  httplib::Client to_analyzer("127.0.0.1", a);
  const std::string text = to_analyzer.Get("/metrics")->body;
  // Both scrapes in the one style of every service: they parse, and hold
  // the latency histogram, process metrics and build info.
  EXPECT_EQ(p2b::test::exposition_error(text), "");
  EXPECT_EQ(p2b::test::common_families_missing(text, "p2b_analyzer"), "");
  httplib::Client to_shuffler_metrics("127.0.0.1", d.shuffler().port());
  const std::string shuffler_text = to_shuffler_metrics.Get("/metrics")->body;
  EXPECT_EQ(p2b::test::exposition_error(shuffler_text), "");
  EXPECT_EQ(p2b::test::common_families_missing(shuffler_text, "p2b_shuffler"), "");
  EXPECT_GE(p2b::proc::metric_value(shuffler_text,
                                    "p2b_shuffler_http_request_duration_seconds_count{method="
                                    "\"POST\",code=\"202\"}"),
            1.0);
  for (const char* line : {"p2b_analyzer_records_rejected_total{reason=\"unknown_key\"} 1",
                           "p2b_analyzer_records_rejected_total{reason=\"crowd_mismatch\"} 1",
                           "p2b_analyzer_records_rejected_total{reason=\"below_threshold\"} 1"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
  const std::vector<double> stats = model_statistics(fetch_model(a));
  EXPECT_DOUBLE_EQ(stats[1 * kDim * kDim], 1.0) << "the victim's lone report was applied";
  EXPECT_GT(stats[2 * kDim * kDim], 1.0);

  // A signed batch (as a faulty shuffler might send) that repeats the
  // victim's inner: within the batch and across batches, replays are
  // dropped before the threshold, so they cannot make up a crowd either.
  p2b::server::Batch replay;
  randombytes_buf(replay.id.data(), replay.id.size());
  replay.thresholds = {3, 0};  // the analyzer's --threshold 3
  for (int i = 0; i < 3; ++i) replay.records.push_back({3, victim_inner});
  res = post_batch(a, sign_batch(replay, p2b_test::test_keys().shuffler_sign_sk));
  ASSERT_TRUE(res && res->status == 200) << (res ? res->body : "");
  EXPECT_EQ(metric(a, "p2b_analyzer_records_applied_total"), 3.0);
  const std::string after = to_analyzer.Get("/metrics")->body;
  EXPECT_NE(after.find("p2b_analyzer_records_rejected_total{reason=\"replayed\"} 3"),
            std::string::npos)
      << after;
  EXPECT_DOUBLE_EQ(model_statistics(fetch_model(a))[1 * kDim * kDim], 1.0);
  EXPECT_EQ(d.shuffler().stop(), 0);
  EXPECT_EQ(d.analyzer().stop(), 0);
}

// A service run by hand, for what ServiceProcess does not expose: its exit
// code after --version or a refusal, and a pid to signal twice.
class Child {
 public:
  Child(const std::string& binary, const std::vector<std::string>& args, const fs::path& log) {
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      const int err = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (err >= 0) dup2(err, STDERR_FILENO);
      close(out[0]);
      close(out[1]);
      std::vector<char*> argv{const_cast<char*>(binary.c_str())};
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(binary.c_str(), argv.data());
      _exit(127);
    }
    close(out[1]);
    out_ = out[0];
  }
  ~Child() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    close(out_);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  // Everything the child writes to stdout up to the first newline (or EOF).
  std::string first_line() {
    std::string line;
    char c = 0;
    while (read(out_, &c, 1) == 1 && c != '\n') line.push_back(c);
    return line;
  }
  std::string all_output() {
    std::string text;
    char buf[4096];
    for (ssize_t n; (n = read(out_, buf, sizeof buf)) > 0;) text.append(buf, buf + n);
    return text;
  }
  void signal(int sig) const { kill(pid_, sig); }
  // The exit code, or -1 if it did not exit within `seconds` (then killed).
  int exit_code(double seconds) {
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<int>(seconds * 1000));
    int status = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
};

std::vector<std::string> shuffler_args(const Deployment& d) {
  return {"--listen",       "127.0.0.1:0",
          "--keys",         (d.dir() / "keys").string(),
          "--store",        (d.dir() / "shuffler.db").string(),
          "--analyzer",     "http://127.0.0.1:9",
          "--analyzer-key", (d.dir() / "keys/analyzer.sign.pk").string(),
          "--spool-key",    d.spool_key_path().string()};
}

std::vector<std::string> analyzer_args(const Deployment& d) {
  return d.analyzer_args();
}

TEST(Services, VersionHelpAndRefusalsExitAsDocumented) {
  Deployment d("cli");
  for (const auto& [binary, name] :
       {std::pair{P2B_SHUFFLER_BIN, "p2b-shuffler"}, std::pair{P2B_ANALYZER_BIN, "p2b-analyzer"}}) {
    Child version(binary, {"--version"}, d.dir() / "cli.log");
    EXPECT_EQ(version.all_output(), std::string(name) + " " + P2B_VERSION_STRING + "\n");
    EXPECT_EQ(version.exit_code(10), 0) << name;
    Child help(binary, {"--help"}, d.dir() / "cli.log");
    const std::string text = help.all_output();
    EXPECT_EQ(help.exit_code(10), 0) << name;
    for (const char* flag :
         {"--listen", "--keys", "--store", "--max-body", "--log-level", "--config", "--version"}) {
      EXPECT_NE(text.find(flag), std::string::npos) << name << " --help lacks " << flag;
    }
    Child bogus(binary, {"--bogus"}, d.dir() / "cli.log");
    EXPECT_EQ(bogus.exit_code(10), 2) << name;
    Child missing(binary, {"--config", (d.dir() / "none.toml").string()}, d.dir() / "cli.log");
    EXPECT_EQ(missing.exit_code(10), 2) << name;
  }
  // Keys that cannot be read: a configuration error, exit 2 (kExitConfig,
  // which the units do not restart), before listening.
  std::vector<std::string> args = shuffler_args(d);
  args[3] = (d.dir() / "no-keys").string();
  Child shuffler(P2B_SHUFFLER_BIN, args, d.dir() / "shuffler.log");
  EXPECT_EQ(shuffler.exit_code(10), 2);
  args = analyzer_args(d);
  args[3] = (d.dir() / "no-keys").string();
  Child analyzer(P2B_ANALYZER_BIN, args, d.dir() / "analyzer.log");
  EXPECT_EQ(analyzer.exit_code(10), 2);
}

TEST(Services, BothReadTheSameConfigKeysAndAnswerErrorsAlike) {
  Deployment d("config");
  const fs::path shuffler_conf = d.dir() / "shuffler.toml";
  const fs::path analyzer_conf = d.dir() / "analyzer.toml";
  const std::string keys = (d.dir() / "keys").string();
  std::ofstream(shuffler_conf) << "# p2b-shuffler\nlisten = \"127.0.0.1:0\"\nkeys = \"" << keys
                               << "\"\nstore = \"" << (d.dir() / "shuffler.db").string()
                               << "\"\nlog-level = \"warn\"\nmax-body = 2080\n"
                                  "analyzer = \"http://127.0.0.1:9\"\n"
                               << "analyzer-key = \"" << keys << "/analyzer.sign.pk\"\n"
                               << "spool-key = \"" << d.spool_key_path().string() << "\"\n";
  std::ofstream(analyzer_conf) << "# p2b-analyzer\nlisten = \"127.0.0.1:0\"\nkeys = \"" << keys
                               << "\"\nstore = \"" << (d.dir() / "analyzer.db").string()
                               << "\"\nlog-level = \"warn\"\nmax-body = 100000\n"
                                  "codebook = \""
                               << (d.dir() / "codebook.p2bc").string() << "\"\nactions = 10\n"
                               << "shuffler-key = \"" << keys << "/shuffler.sign.pk\"\n"
                               << "central-epsilon = \"off\"\n";
  p2b::proc::ServiceProcess shuffler, analyzer;
  shuffler.start(P2B_SHUFFLER_BIN, {"--config", shuffler_conf.string()},
                 (d.dir() / "shuffler.log").string());
  analyzer.start(P2B_ANALYZER_BIN, {"--config", analyzer_conf.string()},
                 (d.dir() / "analyzer.log").string());
  for (const p2b::proc::ServiceProcess* s : {&shuffler, &analyzer}) {
    httplib::Client cli("127.0.0.1", s->port());
    const auto res = cli.Get("/no/such/path");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 404);
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
    EXPECT_EQ(res->body.rfind("{\"error\":\"not_found\",\"detail\":\"", 0), 0u) << res->body;
  }
  // max-body from the files: both refuse a larger body with 413 before reading it; to the
  // analyzer's /v1/batches that is a batch too large, with its own code for the shuffler.
  httplib::Client to_shuffler("127.0.0.1", shuffler.port());
  auto res = to_shuffler.Post("/v1/reports", std::string(2288, 'x'), "application/octet-stream");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  EXPECT_EQ(res->body.rfind("{\"error\":\"too_large\"", 0), 0u) << res->body;
  httplib::Client to_analyzer("127.0.0.1", analyzer.port());
  res = to_analyzer.Post("/v1/batches", std::string(100001, 'x'), "application/octet-stream");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  EXPECT_EQ(res->body.rfind("{\"error\":\"batch_too_large\"", 0), 0u) << res->body;
  res = to_analyzer.Post("/v1/raw", std::string(100001, 'x'), "application/octet-stream");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  EXPECT_EQ(res->body.rfind("{\"error\":\"too_large\"", 0), 0u) << res->body;
  EXPECT_EQ(shuffler.stop(), 0);
  EXPECT_EQ(analyzer.stop(), 0);
  // log-level = warn: the info lines (started, listening) were not written.
  std::ifstream log(d.dir() / "analyzer.log");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.find("\"event\":\"started\""), std::string::npos) << text;
}

// A client that sent half a request holds its connection for the drain
// (--drain-timeout 30 here, so the drain outlasts the test's 300 ms); a
// second SIGTERM cuts it short with exit 3, which a supervisor treats as a
// failure.
TEST(Services, ASecondSignalDuringTheDrainExitsUnclean) {
  Deployment d("forced");
  for (auto [binary, args] : {std::pair{P2B_SHUFFLER_BIN, shuffler_args(d)},
                              std::pair{P2B_ANALYZER_BIN, analyzer_args(d)}}) {
    args.insert(args.end(), {"--drain-timeout", "30"});
    Child service(binary, args, d.dir() / "forced.log");
    const std::string line = service.first_line();
    const std::string prefix = "listening on 127.0.0.1:";
    ASSERT_EQ(line.rfind(prefix, 0), 0u) << line;
    const int port = std::stoi(line.substr(prefix.size()));
    const int sock = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(connect(sock, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
    const std::string half = "POST /v1/x HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    ASSERT_EQ(write(sock, half.data(), half.size()), static_cast<ssize_t>(half.size()));
    // The half request holds a connection (a scrape counts itself too), so the
    // drain cannot end by itself; the second signal goes once the first was
    // taken (two close together could merge into one).
    // (A structured binding cannot be captured in C++17: name the gauge first.)
    const std::string connections = binary == std::string(P2B_SHUFFLER_BIN)
                                        ? "p2b_shuffler_http_connections"
                                        : "p2b_analyzer_http_connections";
    ASSERT_TRUE(eventually(60, [&] { return metric(port, connections) >= 2.0; }));
    // Both services log to forced.log: count this one's "stopping" line.
    const auto stopping_lines = [&] {
      std::ifstream in(d.dir() / "forced.log");
      std::string log_line;
      std::size_t n = 0;
      while (std::getline(in, log_line)) {
        n += log_line.find("\"event\":\"stopping\"") != std::string::npos;
      }
      return n;
    };
    const std::size_t stopping_before = stopping_lines();
    service.signal(SIGTERM);
    ASSERT_TRUE(eventually(60, [&] { return stopping_lines() > stopping_before; }));
    service.signal(SIGTERM);
    EXPECT_EQ(service.exit_code(3), 3) << binary;
    close(sock);
  }
  std::ifstream log(d.dir() / "forced.log");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"event\":\"stop_forced\""), std::string::npos) << text;
}

}  // namespace
