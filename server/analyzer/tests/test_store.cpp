// The SQLite store: a reopened analyzer serves exactly what it served before
// (statistics and bundle bytes), applied batch ids survive, the store refuses
// another configuration, and a failed commit changes nothing.
#include <gtest/gtest.h>

#include <sodium.h>

#include <filesystem>
#include <random>

#include "analyzer_test_support.hpp"
#include "common/sqlite_db.hpp"
#include "common/store_open.hpp"

namespace {

using analyzer_test::Deployment;
using analyzer_test::Harness;
using analyzer_test::TempDir;
namespace an = p2b::analyzer;

TEST(AnalyzerStore, ReopenGivesIdenticalStatisticsAndBundle) {
  const Deployment dep(5, 16);
  const TempDir tmp;
  const std::string db = tmp.file("s.db");
  std::mt19937_64 rng(5);
  an::Statistics stats, raw_stats;
  std::vector<uint8_t> bundle, raw_bundle;
  p2b::server::Batch first;
  {
    Harness h(dep, db, 3, an::AggregationMode::centroid, true);
    first = analyzer_test::make_batch(dep, analyzer_test::random_tuples(rng, 60, 16, 3));
    analyzer_test::apply(*h.analyzer, first);
    analyzer_test::apply(
        *h.analyzer, analyzer_test::make_batch(dep, analyzer_test::random_tuples(rng, 60, 16, 3)));
    an::RawBatch raw;
    std::string err;
    const std::vector<uint8_t> body = an::encode_raw(5, {1, 2, 3, 4, 5}, {2}, {1.0F});
    ASSERT_TRUE(an::decode_raw(body.data(), body.size(), 5, 3, &raw, &err)) << err;
    h.analyzer->apply_raw(raw);
    stats = h.analyzer->statistics(an::ModelKind::private_reports);
    raw_stats = h.analyzer->statistics(an::ModelKind::raw_baseline);
    bundle = h.analyzer->model(an::ModelKind::private_reports)->bundle;
    raw_bundle = h.analyzer->model(an::ModelKind::raw_baseline)->bundle;
  }
  Harness again(dep, db, 3, an::AggregationMode::centroid, true);
  EXPECT_EQ(again.analyzer->statistics(an::ModelKind::private_reports), stats);
  EXPECT_EQ(again.analyzer->statistics(an::ModelKind::raw_baseline), raw_stats);
  const auto model = again.analyzer->model(an::ModelKind::private_reports);
  ASSERT_TRUE(model);
  EXPECT_EQ(model->version, 2u);
  EXPECT_EQ(model->bundle, bundle);
  EXPECT_EQ(again.analyzer->model(an::ModelKind::raw_baseline)->bundle, raw_bundle);
  EXPECT_EQ(again.analyzer->model(an::ModelKind::raw_baseline)->version, 1u);
  // The batch applied before the restart is still known.
  EXPECT_EQ(analyzer_test::apply(*again.analyzer, first).result, an::BatchResult::duplicate);
  EXPECT_EQ(again.analyzer->model(an::ModelKind::private_reports)->version, 2u);
  EXPECT_NE(again.metrics.prometheus_text().find("p2b_analyzer_model_version 2"),
            std::string::npos);
}

TEST(AnalyzerStore, AStoreOfAnotherConfigurationIsRefused) {
  const Deployment dep(5, 16);
  const TempDir tmp;
  const std::string db = tmp.file("s.db");
  { Harness h(dep, db, 3); }
  EXPECT_THROW(Harness(dep, db, 4), an::StoreError);
  EXPECT_THROW(Harness(dep, db, 3, an::AggregationMode::paper), an::StoreError);
  const Deployment other(5, 17);
  EXPECT_THROW(Harness(other, db, 3), an::StoreError);
  EXPECT_NO_THROW(Harness(dep, db, 3));
}

TEST(AnalyzerStore, UnopenablePathThrows) {
  const TempDir tmp;
  EXPECT_THROW(an::SqliteModelStore(tmp.file("missing-dir/s.db"), analyzer_test::test_mac_keys()),
               an::StoreError);
  // A file that is not a database.
  const std::string junk = tmp.file("junk.db");
  FILE* f = std::fopen(junk.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fputs("this is certainly not an SQLite database, not even close to one", f);
  std::fclose(f);
  // Not a database at all is damage: refused (exit 4), not retried.
  EXPECT_THROW(an::SqliteModelStore(junk, analyzer_test::test_mac_keys()),
               p2b::common::StoreRefused);
}

// Passes everything to a real store, but can be told to fail the next
// commit, as a full disk or a kill before COMMIT would.
class FlakyStore : public an::ModelStore {
 public:
  explicit FlakyStore(an::ModelStore* inner) : inner_(inner) {}
  void bind(const an::StoreIdentity& id) override { inner_->bind(id); }
  void load(an::ModelKind k, an::Statistics* s, an::SignedModel* m) override {
    inner_->load(k, s, m);
  }
  std::optional<an::AppliedBatch> find_batch(const p2b::server::BatchId& id) override {
    return inner_->find_batch(id);
  }
  bool inner_seen(const an::Epoch& e, const p2b::server::InnerDigest& d) override {
    return inner_->inner_seen(e, d);
  }
  void commit(const an::Commit& c) override {
    if (fail_next) {
      fail_next = false;
      throw an::StoreError("injected failure");
    }
    inner_->commit(c);
  }
  bool fail_next = false;

 private:
  an::ModelStore* inner_;
};

TEST(AnalyzerStore, AFailedCommitChangesNothingAndTheRetryAppliesOnce) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  an::SqliteModelStore sqlite(tmp.file("s.db"), analyzer_test::test_mac_keys());
  FlakyStore flaky(&sqlite);
  std::ostringstream sink;
  an::Logger log(&sink);
  an::Metrics metrics;
  an::AnalyzerSettings s = analyzer_test::settings(2);
  an::Analyzer analyzer(s, dep.codebook, dep.key_ring(), &flaky, &metrics, &log);
  std::mt19937_64 rng(6);
  const p2b::server::Batch b1 =
      analyzer_test::make_batch(dep, analyzer_test::random_tuples(rng, 20, 8, 2));
  analyzer_test::apply(analyzer, b1);
  const an::Statistics before = analyzer.statistics(an::ModelKind::private_reports);
  const std::vector<uint8_t> bundle = analyzer.model(an::ModelKind::private_reports)->bundle;

  const p2b::server::Batch b2 =
      analyzer_test::make_batch(dep, analyzer_test::random_tuples(rng, 20, 8, 2));
  flaky.fail_next = true;
  EXPECT_TRUE(analyzer.last_publish_ok());
  EXPECT_THROW(analyzer_test::apply(analyzer, b2), an::StoreError);
  EXPECT_FALSE(analyzer.last_publish_ok()) << "/readyz reports the publisher failing";
  EXPECT_EQ(analyzer.statistics(an::ModelKind::private_reports), before);
  EXPECT_EQ(analyzer.model(an::ModelKind::private_reports)->bundle, bundle);
  EXPECT_FALSE(sqlite.find_batch(b2.id).has_value());
  for (const p2b::server::BatchRecord& r : b2.records) {
    EXPECT_FALSE(sqlite.inner_seen(an::epoch_of(r.inner), p2b::server::inner_digest(r.inner)));
  }

  const an::BatchOutcome retry = analyzer_test::apply(analyzer, b2);
  EXPECT_EQ(retry.result, an::BatchResult::applied);
  EXPECT_EQ(retry.version, 2u);
  EXPECT_TRUE(analyzer.last_publish_ok());
  EXPECT_EQ(analyzer_test::apply(analyzer, b2).result, an::BatchResult::duplicate);
  EXPECT_EQ(analyzer.statistics(an::ModelKind::private_reports).total_count(), 40u);
}

TEST(AnalyzerStore, OneWriterPerStoreAndVersionsMustAdvanceByOne) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  const std::string db = tmp.file("s.db");
  Harness a(dep, db, 2);
  // A second analyzer on the same file is refused at open (store lock).
  EXPECT_THROW(Harness(dep, db, 2), an::StoreError);
  std::mt19937_64 rng(7);
  analyzer_test::apply(*a.analyzer,
                       analyzer_test::make_batch(dep, analyzer_test::random_tuples(rng, 5, 8, 2)));
  // A writer that ignores the lock would make the versions diverge; the
  // store refuses rather than overwrite the other's model.
  {
    p2b::common::Database other(db);
    other.exec("UPDATE private_model SET version = version + 1");
  }
  EXPECT_THROW(
      analyzer_test::apply(
          *a.analyzer, analyzer_test::make_batch(dep, analyzer_test::random_tuples(rng, 5, 8, 2))),
      an::StoreError);
}

// Two flipped bytes in a stored gram: the fault. Such statistics
// were signed and served; now the store refuses to start, naming the arm.
TEST(AnalyzerStore, FlippedBytesInAStoredGramAreNeverSigned) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  const std::string db = tmp.file("s.db");
  std::mt19937_64 rng(11);
  {
    Harness h(dep, db, 3);
    analyzer_test::apply(
        *h.analyzer, analyzer_test::make_batch(dep, analyzer_test::random_tuples(rng, 40, 8, 3)));
  }
  {
    p2b::common::Database raw(db);
    raw.exec(
        "UPDATE private_arms SET gram = CAST(substr(gram, 1, 16) || "
        "x'0102' || substr(gram, 19) AS BLOB) WHERE arm = 1");
  }
  try {
    Harness h(dep, db, 3);
    FAIL() << "damaged statistics were loaded";
  } catch (const p2b::common::StoreRefused& e) {
    EXPECT_NE(std::string(e.what()).find("arm 1 of private_arms fails its MAC"), std::string::npos)
        << e.what();
  }
}

// A row put back from an earlier state carries a valid MAC of its own; the
// model row binds every arm row's MAC, so the mix is refused.
TEST(AnalyzerStore, AnOlderArmRowPutBackIsRefused) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  const std::string db = tmp.file("s.db");
  std::mt19937_64 rng(12);
  {
    Harness h(dep, db, 2);
    analyzer_test::apply(*h.analyzer, analyzer_test::make_batch(dep, {{1, 0, 1.0F}}));
  }
  {
    p2b::common::Database raw(db);
    raw.exec("CREATE TABLE old AS SELECT * FROM private_arms");
  }
  {
    Harness h(dep, db, 2);
    analyzer_test::apply(*h.analyzer, analyzer_test::make_batch(dep, {{1, 0, 0.5F}}));
  }
  {
    p2b::common::Database raw(db);
    raw.exec("INSERT OR REPLACE INTO private_arms SELECT * FROM old; DROP TABLE old");
  }
  try {
    Harness h(dep, db, 2);
    FAIL() << "a rolled-back row was loaded";
  } catch (const p2b::common::StoreRefused& e) {
    EXPECT_NE(std::string(e.what()).find("private_model row"), std::string::npos) << e.what();
  }
}

// After a signing-key rotation with the old dir still in --keys, the rows
// are re-MACed under the new key once; a key that never wrote them is
// refused.
TEST(AnalyzerStore, ASigningKeyRotationReMacsTheStatistics) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  const std::string db = tmp.file("s.db");
  std::mt19937_64 rng(13);
  uint32_t dim = 0;
  an::Statistics before;
  {
    Harness h(dep, db, 2);
    analyzer_test::apply(
        *h.analyzer, analyzer_test::make_batch(dep, analyzer_test::random_tuples(rng, 20, 8, 2)));
    dim = h.analyzer->dim();
    before = h.analyzer->statistics(an::ModelKind::private_reports);
  }
  uint8_t pk[crypto_sign_PUBLICKEYBYTES], new_sk[crypto_sign_SECRETKEYBYTES];
  crypto_sign_keypair(pk, new_sk);
  const auto load = [&](const std::vector<const uint8_t*>& sks) {
    an::SqliteModelStore store(db, an::StatsMacKeys::from_sign_keys(sks));
    an::Statistics stats(dim, 2);
    an::SignedModel model;
    store.load(an::ModelKind::private_reports, &stats, &model);
    return stats;
  };
  EXPECT_THROW(load({new_sk}), p2b::common::StoreRefused) << "the new key alone never wrote it";
  EXPECT_EQ(load({p2b_test::test_keys().sign_sk, new_sk}), before);
  EXPECT_EQ(load({new_sk}), before) << "re-MACed under the new key";
  EXPECT_THROW(load({p2b_test::test_keys().sign_sk}), p2b::common::StoreRefused);
}

// The statement left open across COMMIT kept the WAL from ever being
// checkpointed: 37.5 KB a batch, and a .db file without any of it.
TEST(AnalyzerStore, TheWalStaysSmallAndTheDbFileAloneIsCurrent) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  const std::string db = tmp.file("s.db");
  std::mt19937_64 rng(14);
  Harness h(dep, db, 3);
  std::uintmax_t largest_wal = 0;
  for (int i = 0; i < 60; ++i) {
    analyzer_test::apply(
        *h.analyzer, analyzer_test::make_batch(dep, analyzer_test::random_tuples(rng, 30, 8, 3)));
    std::error_code ec;
    const std::uintmax_t wal = std::filesystem::file_size(db + "-wal", ec);
    if (!ec && wal > largest_wal) largest_wal = wal;
  }
  EXPECT_EQ(largest_wal, 0U) << "every commit is followed by a truncating checkpoint";
  // A copy of only the .db, taken while the analyzer runs, is the latest.
  const std::string copy = tmp.file("copy.db");
  std::filesystem::copy_file(db, copy);
  p2b::common::Database opened(copy);
  p2b::common::Statement q(opened, "SELECT version FROM private_model");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.column_int(0), 60);
}

// A store from before application_id and the MAC (user_version 0) is
// upgraded in place: its rows are MACed once, as they are, and load.
TEST(AnalyzerStore, AStoreFromBeforeTheMacIsUpgradedInPlace) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  const std::string db = tmp.file("s.db");
  std::mt19937_64 rng(15);
  an::Statistics before;
  {
    Harness h(dep, db, 2);
    analyzer_test::apply(
        *h.analyzer, analyzer_test::make_batch(dep, analyzer_test::random_tuples(rng, 20, 8, 2)));
    before = h.analyzer->statistics(an::ModelKind::private_reports);
  }
  {
    p2b::common::Database raw(db);
    for (const char* t : {"private_arms", "private_model", "raw_arms", "raw_model"}) {
      raw.exec(std::string("ALTER TABLE ") + t + " DROP COLUMN mac");
    }
    raw.exec("PRAGMA user_version=0; PRAGMA application_id=0");
  }
  Harness h(dep, db, 2);
  EXPECT_EQ(h.analyzer->statistics(an::ModelKind::private_reports), before);
  EXPECT_EQ(h.analyzer->model(an::ModelKind::private_reports)->version, 1U);
}

}  // namespace

namespace {

// A store an older p2b bound (meta schema 2) has no batch counts for format-2
// acks: it is refused, and refused before the MAC upgrade touches it.
TEST(AnalyzerStore, AStoreOfAnOlderSchemaIsRefusedUntouched) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  const std::string db = tmp.file("s.db");
  { Harness h(dep, db, 2); }
  {
    p2b::common::Database raw(db);
    for (const char* t : {"private_arms", "private_model", "raw_arms", "raw_model"}) {
      raw.exec(std::string("ALTER TABLE ") + t + " DROP COLUMN mac");
    }
    raw.exec("UPDATE meta SET value = '2' WHERE key = 'schema'");
    raw.exec("PRAGMA user_version=0; PRAGMA application_id=0");
  }
  try {
    Harness h(dep, db, 2);
    ADD_FAILURE() << "an older store was opened";
  } catch (const p2b::common::StoreRefused& e) {
    EXPECT_NE(std::string(e.what()).find("older p2b (store schema 2)"), std::string::npos)
        << e.what();
  }
  p2b::common::Database raw(db);
  p2b::common::Statement mac(raw,
                             "SELECT 1 FROM pragma_table_info('private_arms') WHERE name = 'mac'");
  EXPECT_FALSE(mac.step()) << "the refused store was altered";
}

TEST(AnalyzerStore, RetiringAnEpochDropsItsDigestsAndRefusesItsKeyAndItsReports) {
  const Deployment dep(4, 8);
  const TempDir tmp;
  const std::string db = tmp.file("s.db");
  std::mt19937_64 rng(21);
  const p2b::server::Batch first =
      analyzer_test::make_batch(dep, analyzer_test::random_tuples(rng, 30, 8, 2));
  {
    Harness h(dep, db, 2);
    EXPECT_EQ(analyzer_test::apply(*h.analyzer, first).applied, 30U);
  }
  an::Epoch epoch{};
  std::copy(dep.analyzer.fp, dep.analyzer.fp + epoch.size(), epoch.begin());
  EXPECT_EQ(an::SqliteModelStore::retire_epoch(db, epoch, 1), 30U);
  {
    p2b::common::Database raw(db);
    p2b::common::Statement left(raw, "SELECT COUNT(*) FROM seen_inner");
    ASSERT_TRUE(left.step());
    EXPECT_EQ(left.column_int(0), 0) << "the epoch's digests are gone";
  }
  // The retired key itself may not come back.
  EXPECT_THROW(Harness(dep, db, 2), p2b::common::StoreRefused);

  // Under a new key, the retired key's reports (a replay under a new batch
  // id) are refused as replays: neither applied nor quarantined.
  p2b::server::BoxKey next{};
  uint8_t pk[32], sk[32];
  crypto_box_keypair(pk, sk);
  p2b::server::make_box_key(pk, sk, &next);
  an::SqliteModelStore store(db, analyzer_test::test_mac_keys());
  std::ostringstream sink;
  an::Logger log(&sink);
  an::Metrics metrics;
  an::Analyzer analyzer(analyzer_test::settings(2), dep.codebook,
                        an::KeyRing::from_keys({next}, p2b_test::test_keys().sign_sk), &store,
                        &metrics, &log);
  p2b::server::Batch replay = first;
  randombytes_buf(replay.id.data(), replay.id.size());
  const an::BatchOutcome out = analyzer_test::apply(analyzer, replay);
  EXPECT_EQ(out.result, an::BatchResult::applied);
  EXPECT_EQ(out.applied, 0U);
  EXPECT_EQ(out.quarantined, 0U);
  EXPECT_EQ(out.by_reason[static_cast<int>(an::RejectReason::replayed)], 30U);
  EXPECT_EQ(store.quarantine_size(), 0U);
  EXPECT_EQ(analyzer.statistics(an::ModelKind::private_reports).total_count(), 30U);
}

}  // namespace
