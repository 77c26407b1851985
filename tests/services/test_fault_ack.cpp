// Issue #12, faults 1 and 2, with real processes: only a signed ack of
// exactly the batch sent, whose counts cover its records, deletes it; and the
// analyzer never acknowledges as applied what it could not open or use (a
// rotated key, a smaller --actions): it quarantines it, and a start with the
// missing key applies it. Every test ends with the ledger: lost 0,
// duplicated 0.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sodium.h>

#include <atomic>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ledger.hpp"
#include "service_fixture.hpp"
#include "test_support.hpp"
#include "wire/batch_ack.hpp"
#include "wire/batch_format.hpp"

namespace {

using namespace p2b_services;

// A second analyzer box key, as `p2b-keygen` would make for a rotation:
// keys-new/ holds it and the unchanged signing pair (only the box pair
// rotates, so the shuffler's pinned analyzer.sign.pk stays valid).
struct RotatedKey {
  uint8_t pk[crypto_box_PUBLICKEYBYTES] = {}, sk[crypto_box_SECRETKEYBYTES] = {};
  fs::path dir;
  explicit RotatedKey(const Deployment& d) : dir(d.dir() / "keys-new") {
    crypto_box_keypair(pk, sk);
    fs::create_directories(dir);
    const auto& k = p2b_test::test_keys();
    Deployment::write_file(dir / "analyzer.box.pk", pk, sizeof pk, 0644);
    Deployment::write_file(dir / "analyzer.box.sk", sk, sizeof sk, 0600);
    Deployment::write_file(dir / "analyzer.sign.pk", k.verify_pk, sizeof k.verify_pk, 0644);
    Deployment::write_file(dir / "analyzer.sign.sk", k.sign_sk, sizeof k.sign_sk, 0600);
  }
  // What an updated device sends: the inner layer sealed to the new key.
  Envelope seal(uint32_t code, uint32_t action, float reward) const {
    const auto& k = p2b_test::test_keys();
    uint8_t sfp[16], afp[16];
    crypto_generichash(sfp, 16, k.shuffler_pk, 32, nullptr, 0);
    crypto_generichash(afp, 16, pk, 32, nullptr, 0);
    const p2b::SealingKeys keys{k.shuffler_pk, sfp, pk, afp};
    Envelope e{};
    EXPECT_EQ(
        p2b::seal_envelope(p2b_test::sodium_port(), keys, {code, action, reward, 0}, e.data()),
        p2b::Status::ok);
    return e;
  }
};

// The deployment's analyzer command line with `keys` for its --keys.
std::vector<std::string> analyzer_args_with_keys(const Deployment& d,
                                                 const std::vector<fs::path>& keys, int port) {
  std::vector<std::string> out;
  const std::vector<std::string> args = d.analyzer_args(1, port);
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--keys") {
      ++i;
      continue;
    }
    out.push_back(args[i]);
  }
  for (const fs::path& k : keys) {
    out.push_back("--keys");
    out.push_back(k.string());
  }
  return out;
}

std::string file_text(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A port for the analyzer that the shuffler can be pointed at before the
// analyzer runs: a stand-in answering 503 holds it until then.
struct Placeholder {
  StandInAnalyzer stand_in{
      [](const httplib::Request&, httplib::Response& res) { res.status = 503; }};
};

bool drained(Deployment& d) {
  return eventually(60,
                    [&] { return metric(d.shuffler().port(), "p2b_shuffler_spool_depth") == 0.0; });
}

TEST(FaultAck, AnythingButAMatchingAckDeletesNothing) {
  Deployment d("fault-ack-forged");
  // Answers 200 to every batch, in turn: junk; a valid signed ack of another
  // batch id; one of this batch whose counts are short of its records.
  std::atomic<int> calls{0};
  StandInAnalyzer fake([&](const httplib::Request& req, httplib::Response& res) {
    const int n = calls.fetch_add(1);
    if (n % 3 == 0) {
      res.set_content("{\"applied\":100,\"ack\":\"00\"}", "application/json");
      return;
    }
    const auto* data = reinterpret_cast<const uint8_t*>(req.body.data());
    p2b::server::BatchAck ack;
    std::copy(data + 8, data + 24, ack.id.begin());
    ack.digest = p2b::server::batch_digest(data, req.body.size());
    ack.records = static_cast<uint32_t>(
        (req.body.size() - p2b::server::kBatchHeaderBytes - crypto_sign_BYTES) /
        p2b::server::kBatchRecordBytes);
    ack.applied = ack.records;
    if (n % 3 == 1) ack.id[0] ^= 1;
    if (n % 3 == 2) --ack.applied;
    const std::vector<uint8_t> bytes =
        p2b::server::encode_signed_ack(ack, p2b_test::test_keys().sign_sk);
    res.set_content("{\"ack\":\"" + p2b::server::hex_of(bytes.data(), bytes.size()) + "\"}",
                    "application/json");
  });
  d.start_shuffler(1, fake.url());
  const std::vector<Envelope> all = envelopes(500);
  Ledger ledger;
  post_expecting_202(ledger, d.shuffler().port(), all, 100);
  // Retries back off from 200 ms: six answers take about 6 s.
  ASSERT_TRUE(eventually(60, [&] { return calls.load() >= 6; })) << "two rounds of the three";
  EXPECT_TRUE(eventually(
      5, [&] { return metric(d.shuffler().port(), "p2b_shuffler_bad_acks_total") >= 6.0; }));
  EXPECT_EQ(metric(d.shuffler().port(), "p2b_shuffler_spool_depth"), 500.0);
  EXPECT_EQ(metric(d.shuffler().port(), "p2b_shuffler_forwarded_total"), 0.0);
  const std::string log = file_text(d.dir() / "shuffler.log");
  for (const char* why : {"the ack is malformed", "the ack is for another batch id",
                          "the ack's applied, quarantined and refused records"}) {
    EXPECT_NE(log.find(why), std::string::npos) << why;
  }
  const int port = fake.port();
  fake.stop();

  d.start_analyzer(1, port);
  ASSERT_TRUE(drained(d));
  EXPECT_EQ(metric(d.analyzer().port(), "p2b_analyzer_records_applied_total"), 500.0);
  EXPECT_EQ(d.shuffler().stop(), 0);
  EXPECT_EQ(d.analyzer().stop(), 0);
  expect_nothing_lost(ledger, d.store_path(), all.size(), 0);
}

TEST(FaultAck, ARotationThatKeepsTheOldKeyLosesNothing) {
  Deployment d("fault-ack-rotation");
  const RotatedKey fresh(d);
  int port = 0;
  Ledger ledger;
  {
    // A backlog sealed to the old key waits in the shuffler.
    const Placeholder down;
    port = down.stand_in.port();
    d.start_shuffler(1, down.stand_in.url());
    post_expecting_202(ledger, d.shuffler().port(), envelopes(1000), 100);
  }
  // Rotated as docs/keys.md says: the new key added, the old one kept.
  d.analyzer().start(P2B_ANALYZER_BIN,
                     analyzer_args_with_keys(d, {d.dir() / "keys", fresh.dir}, port),
                     (d.dir() / "analyzer.log").string());
  std::vector<Envelope> new_sealed;
  for (std::size_t i = 0; i < 1000; ++i) {
    new_sealed.push_back(fresh.seal(static_cast<uint32_t>(i % kCodes), action_of_index(i), 1.0F));
  }
  post_expecting_202(ledger, d.shuffler().port(), new_sealed, 100);
  ASSERT_TRUE(eventually(60, [&] {
    return metric(d.analyzer().port(), "p2b_analyzer_records_applied_total") >= 2000.0;
  }));
  ASSERT_TRUE(drained(d));
  EXPECT_EQ(metric(d.analyzer().port(), "p2b_analyzer_quarantine_records"), 0.0);
  EXPECT_EQ(d.shuffler().stop(), 0);
  EXPECT_EQ(d.analyzer().stop(), 0);
  expect_nothing_lost(ledger, d.store_path(), 2000, 0);
}

TEST(FaultAck, ARotationThatDroppedTheOldKeyQuarantinesAndARestartWithItApplies) {
  Deployment d("fault-ack-wrong-rotation");
  const RotatedKey fresh(d);
  int port = 0;
  Ledger ledger;
  const std::vector<Envelope> old_sealed = envelopes(2000);
  {
    const Placeholder down;
    port = down.stand_in.port();
    d.start_shuffler(1, down.stand_in.url());
    post_expecting_202(ledger, d.shuffler().port(), old_sealed, 100);
  }
  // The operator forgot the old key.
  d.analyzer().start(P2B_ANALYZER_BIN, analyzer_args_with_keys(d, {fresh.dir}, port),
                     (d.dir() / "analyzer.log").string());
  ASSERT_TRUE(drained(d));
  const int a = d.analyzer().port();
  EXPECT_EQ(metric(a, "p2b_analyzer_records_applied_total"), 0.0);
  EXPECT_EQ(metric(a, "p2b_analyzer_records_quarantined_total"), 2000.0);
  EXPECT_EQ(metric(a, "p2b_analyzer_quarantine_records"), 2000.0);
  EXPECT_EQ(d.analyzer().stop(), 0);
  const std::string log = file_text(d.dir() / "analyzer.log");
  EXPECT_NE(log.find("\"level\":\"error\",\"event\":\"records_quarantined\""), std::string::npos)
      << log.substr(0, 2000);
  EXPECT_NE(log.find("\"quarantined_unknown_key\""), std::string::npos);
  EXPECT_NE(file_text(d.dir() / "shuffler.log").find("\"quarantined\":"), std::string::npos);
  expect_nothing_lost(ledger, d.store_path(), 0, 2000);

  // The old key added back: the start applies the quarantine, once.
  d.analyzer().start(P2B_ANALYZER_BIN,
                     analyzer_args_with_keys(d, {d.dir() / "keys", fresh.dir}, port),
                     (d.dir() / "analyzer.log").string());
  EXPECT_EQ(metric(d.analyzer().port(), "p2b_analyzer_quarantine_records"), 0.0);
  EXPECT_EQ(metric(d.analyzer().port(), "p2b_analyzer_records_released_total"), 2000.0);
  EXPECT_GT(fetch_model(d.analyzer().port()).size(), 0U);
  EXPECT_EQ(d.shuffler().stop(), 0);
  EXPECT_EQ(d.analyzer().stop(), 0);
  expect_nothing_lost(ledger, d.store_path(), 2000, 0);
  d.analyzer().start(P2B_ANALYZER_BIN,
                     analyzer_args_with_keys(d, {d.dir() / "keys", fresh.dir}, port),
                     (d.dir() / "analyzer.log").string());
  EXPECT_EQ(metric(d.analyzer().port(), "p2b_analyzer_records_released_total"), 0.0);
  EXPECT_EQ(d.analyzer().stop(), 0);
  expect_nothing_lost(ledger, d.store_path(), 2000, 0);
}

TEST(FaultAck, ASmallerActionsQuarantinesWhatItCannotHoldWithAnErrorLog) {
  Deployment d("fault-ack-actions");
  d.start_analyzer(1, 0, {"--actions", "5"});  // the last --actions counts
  d.start_shuffler(1, d.analyzer().url());
  const std::vector<Envelope> all = envelopes(1000);  // actions 0..9
  Ledger ledger;
  post_expecting_202(ledger, d.shuffler().port(), all, 100);
  ASSERT_TRUE(drained(d));
  const int a = d.analyzer().port();
  EXPECT_EQ(metric(a, "p2b_analyzer_records_applied_total"), 500.0);
  EXPECT_EQ(metric(a, "p2b_analyzer_quarantine_records"), 500.0);
  httplib::Client to_analyzer("127.0.0.1", a);
  const std::string text = to_analyzer.Get("/metrics")->body;
  EXPECT_NE(text.find("p2b_analyzer_records_quarantined_total{reason=\"action_out_of_range\"} 500"),
            std::string::npos)
      << text;
  EXPECT_EQ(d.shuffler().stop(), 0);
  EXPECT_EQ(d.analyzer().stop(), 0);
  const std::string log = file_text(d.dir() / "analyzer.log");
  EXPECT_NE(log.find("\"level\":\"error\",\"event\":\"records_quarantined\""), std::string::npos);
  EXPECT_NE(log.find("\"quarantined_action_out_of_range\""), std::string::npos);
  expect_nothing_lost(ledger, d.store_path(), 500, 500);
}

}  // namespace
