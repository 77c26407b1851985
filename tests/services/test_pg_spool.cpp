// The shuffler's PostgreSQL spool against a throwaway cluster: replays
// count once per epoch across requests, groups and processes; retirement
// drops an epoch's child tables and refuses its records everywhere; the
// partition count is fixed at creation and partition_of is a fixed hash;
// leases expire by the database's clock and a close under a lost lease
// changes nothing; a row whose bytes changed in the database is set aside
// as damaged_in_spool, never batched or sent, and `p2b-shuffler
// quarantine` lists and purges what was set aside.
#include <gtest/gtest.h>
#include <sodium.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/exit_codes.hpp"
#include "common/pg/pg.hpp"
#include "common/store_open.hpp"
#include "pg_cluster.hpp"
#include "shuffler/pg_spool.hpp"
#include "shuffler/quarantine_main.hpp"
#include "wire/batch_format.hpp"

namespace {

using p2b::server::BatchId;
using p2b::shuffler::ClosedBatch;
using p2b::shuffler::EpochId;
using p2b::shuffler::Lease;
using p2b::shuffler::PgSpool;
using p2b::shuffler::PgSpoolOptions;
using p2b::shuffler::SpoolRecord;
using p2b_services::PgCluster;

EpochId epoch_of(uint8_t b) {
  EpochId e{};
  e.fill(b);
  return e;
}

BatchId batch_id(uint8_t b) {
  BatchId id{};
  id.fill(b);
  return id;
}

std::vector<std::size_t> keep_all(const std::vector<uint32_t>& crowds) {
  std::vector<std::size_t> all(crowds.size());
  std::iota(all.begin(), all.end(), 0);
  return all;
}

class PgSpoolTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (sodium_init() < 0) std::abort();
    PgCluster::Options options;
    options.fsync = false;  // durability is PostgreSQL's; these test the logic
    cluster_ = PgCluster::start_primary(options).release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  // A fresh database per test, so every test starts from a new store.
  void SetUp() override {
    static int n = 0;
    const std::string db = "spool_" + std::to_string(++n);
    p2b::pg::Connection admin(cluster_->url("postgres"));
    admin.exec("CREATE DATABASE " + db + " OWNER p2b");
    url_ = cluster_->url(db);
  }
  std::unique_ptr<PgSpool> open(uint32_t partitions = 0,
                                std::chrono::milliseconds ttl = std::chrono::seconds(30)) {
    PgSpoolOptions options;
    options.partitions = partitions;
    options.lease_ttl = ttl;
    return std::make_unique<PgSpool>(url_, options);
  }
  static SpoolRecord record(const PgSpool& spool, uint32_t crowd, const EpochId& epoch) {
    SpoolRecord r;
    r.crowd_id = crowd;
    randombytes_buf(r.inner.data(), r.inner.size());
    randombytes_buf(r.digest.data(), r.digest.size());
    r.inner_digest = p2b::server::inner_digest(r.inner);
    r.epoch = epoch;
    r.partition = spool.partition_of(crowd);
    return r;
  }
  int64_t scalar(const std::string& sql) const {
    p2b::pg::Connection c(url_);
    return c.query(sql).int8(0, 0);
  }
  // Changes stored rows behind the spool's back, as a damaged disk or a
  // stray write would: the row stays well-formed, its bytes differ.
  void tamper(const std::string& sql, const p2b::pg::Params& params = {}) const {
    p2b::pg::Connection c(url_);
    if (params.size() == 0) {
      c.exec(sql);  // may be several statements
    } else {
      c.query(sql, params);
    }
  }
  // Flips one byte in the middle of a stored record's inner ciphertext.
  void flip_inner(const SpoolRecord& r) const {
    tamper(
        "UPDATE shuffler_records SET inner_ct = set_byte(inner_ct, 56, get_byte(inner_ct, 56) # "
        "255) WHERE inner_ct = $1",
        p2b::pg::Params().bytes(r.inner.data(), r.inner.size()));
  }

  static PgCluster* cluster_;
  std::string url_;
};

PgCluster* PgSpoolTest::cluster_ = nullptr;

TEST_F(PgSpoolTest, ReplaysCountOncePerEpochAcrossRequestsGroupsAndProcesses) {
  auto spool = open();
  const EpochId a = epoch_of(1), b = epoch_of(2);
  spool->open_epoch(a);
  spool->open_epoch(b);
  const SpoolRecord r = record(*spool, 7, a);
  auto counts = spool->insert({r, r});
  EXPECT_EQ(counts.accepted, 1U);
  EXPECT_EQ(counts.duplicates, 1U);
  EXPECT_EQ(spool->insert({r}).duplicates, 1U);

  // Another process on the same store knows it too.
  auto other = open();
  EXPECT_EQ(other->insert({r}).duplicates, 1U);

  // The same inner in a fresh outer layer is an inner replay.
  SpoolRecord resealed = r;
  randombytes_buf(resealed.digest.data(), resealed.digest.size());
  EXPECT_EQ(spool->insert({resealed}).inner_duplicates, 1U);

  // Epochs keep apart: the same digests under another key are new there.
  SpoolRecord under_b = r;
  under_b.epoch = b;
  EXPECT_EQ(spool->insert({under_b}).accepted, 1U);

  // A group: a record of an earlier request is a duplicate in a later one,
  // an inner shared by two new envelopes counts once.
  const SpoolRecord s = record(*spool, 8, a);
  SpoolRecord s_resealed = s;
  randombytes_buf(s_resealed.digest.data(), s_resealed.digest.size());
  const std::vector<SpoolRecord> first{s}, second{s, s_resealed, record(*spool, 9, a)};
  const auto group = spool->insert_all({&first, &second});
  ASSERT_EQ(group.size(), 2U);
  EXPECT_EQ(group[0].accepted, 1U);
  EXPECT_EQ(group[1].accepted, 1U);
  EXPECT_EQ(group[1].duplicates, 1U);
  EXPECT_EQ(group[1].inner_duplicates, 1U);
  EXPECT_EQ(spool->depth(), 4U);  // r, r under b, s, and crowd 9
}

TEST_F(PgSpoolTest, ARecordOfAnEpochNeverOpenedIsAnError) {
  auto spool = open();
  EXPECT_THROW(spool->insert({record(*spool, 1, epoch_of(9))}), p2b::shuffler::SpoolError);
  EXPECT_EQ(spool->depth(), 0U);
}

TEST_F(PgSpoolTest, RetirementDropsTheEpochsTablesAndRefusesItEverywhere) {
  auto spool = open();
  auto other = open();
  const EpochId a = epoch_of(1), b = epoch_of(2);
  spool->open_epoch(a);
  spool->open_epoch(b);
  for (uint32_t i = 0; i < 3; ++i) ASSERT_EQ(spool->insert({record(*spool, i, a)}).accepted, 1U);
  ASSERT_EQ(spool->insert({record(*spool, 1, b)}).accepted, 1U);

  EXPECT_EQ(other->retire_epoch(a), 3U);  // one replay row per envelope
  EXPECT_TRUE(spool->epoch_retired(a));
  EXPECT_FALSE(spool->epoch_retired(b));
  EXPECT_EQ(scalar("SELECT count(*) FROM pg_class WHERE relname LIKE 'shuffler_seen%_e1'"), 0);

  // A request with one retired record stores nothing, on every process.
  const auto counts = spool->insert({record(*spool, 4, b), record(*spool, 5, a)});
  EXPECT_EQ(counts.retired, 1U);
  EXPECT_EQ(counts.accepted, 0U);
  EXPECT_EQ(spool->depth(), 4U);  // acknowledged records stay
  EXPECT_THROW(spool->open_epoch(a), p2b::shuffler::EpochRetired);
  EXPECT_THROW(open()->open_epoch(a), p2b::shuffler::EpochRetired);
  EXPECT_EQ(spool->insert({record(*spool, 6, b)}).accepted, 1U);
  EXPECT_EQ(spool->retire_epoch(a), 0U);  // again: nothing left to drop
}

TEST_F(PgSpoolTest, RetirementWaitsForInsertsInFlightAndNeverLetsOneThroughUnchecked) {
  auto spool = open();
  auto retirer = open();
  const EpochId a = epoch_of(1);
  spool->open_epoch(a);
  std::atomic<bool> stop{false};
  std::atomic<int> accepted_after{0}, refused{0};
  std::atomic<bool> retired{false};
  std::thread writer([&] {
    for (int i = 0; i < 20000 && !stop; ++i) {
      const bool was_retired = retired.load();
      const auto counts = spool->insert({record(*spool, static_cast<uint32_t>(i), a)});
      if (counts.retired > 0) ++refused;
      if (was_retired && counts.accepted > 0) ++accepted_after;
      if (refused > 20) break;
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  retirer->retire_epoch(a);
  retired = true;
  writer.join();
  EXPECT_EQ(accepted_after.load(), 0);  // nothing accepted once the retirement committed
  EXPECT_GT(refused.load(), 0);
  // Every record stored before the retirement is there; no replay row of
  // the epoch survived.
  EXPECT_EQ(scalar("SELECT count(*) FROM shuffler_seen_inner"), 0);
}

TEST_F(PgSpoolTest, ACommandOnAnExistingStoreDoesNotCreateOne) {
  PgSpoolOptions options;
  options.must_exist = true;
  EXPECT_THROW(PgSpool(url_, options), p2b::shuffler::SpoolError);
  EXPECT_EQ(scalar("SELECT count(*) FROM pg_class WHERE relname LIKE 'shuffler%'"), 0);
  open(2);
  EXPECT_EQ(PgSpool(url_, options).partition_count(), 2U);
}

TEST_F(PgSpoolTest, ThePartitionCountIsFixedWhenTheStoreIsCreated) {
  auto spool = open(4);
  EXPECT_EQ(spool->partitions(), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_THROW(open(3), p2b::common::StoreRefused);
  EXPECT_EQ(open(0)->partition_count(), 4U);  // 0: whatever the store has
  EXPECT_EQ(open(4)->partition_count(), 4U);
}

TEST_F(PgSpoolTest, PartitionOfIsAFixedHashEveryReleaseAgreesOn) {
  // BLAKE2b-256 of the crowd id's 4 little-endian bytes, first 4 bytes
  // little-endian, mod P. These values must never change: nodes of
  // different releases share one store.
  const std::vector<uint32_t> expected = {
      p2b::shuffler::partition_hash(0, 4), p2b::shuffler::partition_hash(1, 4),
      p2b::shuffler::partition_hash(2, 4), p2b::shuffler::partition_hash(3, 4)};
  uint8_t in[4] = {1, 0, 0, 0}, out[32];
  crypto_generichash(out, sizeof out, in, sizeof in, nullptr, 0);
  const uint32_t h1 = uint32_t{out[0]} | (uint32_t{out[1]} << 8) | (uint32_t{out[2]} << 16) |
                      (uint32_t{out[3]} << 24);
  EXPECT_EQ(expected[1], h1 % 4);
  EXPECT_EQ(p2b::shuffler::partition_hash(12345, 1), 0U);
  auto spool = open(4);
  std::set<uint32_t> used;
  for (uint32_t crowd = 0; crowd < 64; ++crowd) {
    EXPECT_EQ(spool->partition_of(crowd), p2b::shuffler::partition_hash(crowd, 4));
    used.insert(spool->partition_of(crowd));
  }
  EXPECT_EQ(used.size(), 4U);  // every partition gets crowds
}

TEST_F(PgSpoolTest, ACloseTakesOnlyItsPartitionAndKeepsTheSelectedOrder) {
  auto spool = open(2);
  const EpochId a = epoch_of(1);
  spool->open_epoch(a);
  std::vector<SpoolRecord> all;
  for (uint32_t crowd = 0; crowd < 20; ++crowd) all.push_back(record(*spool, crowd, a));
  ASSERT_EQ(spool->insert(all).accepted, 20U);
  std::size_t in_0 = 0;
  for (const SpoolRecord& r : all) in_0 += r.partition == 0 ? 1 : 0;
  const auto lease = spool->acquire_lease(0, "me", std::chrono::seconds(10));
  ASSERT_TRUE(lease);
  std::vector<uint32_t> seen;
  const ClosedBatch closed =
      spool->close_batch(batch_id(1), *lease, 1000, [&](const std::vector<uint32_t>& crowds) {
        seen = crowds;
        std::vector<std::size_t> order(crowds.size() - 1);  // drop the first, reverse the rest
        std::iota(order.rbegin(), order.rend(), 1);
        return order;
      });
  EXPECT_EQ(closed.taken, in_0);
  EXPECT_EQ(closed.kept, in_0 - 1);
  EXPECT_EQ(closed.thresholded, 1U);
  for (const uint32_t crowd : seen) EXPECT_EQ(spool->partition_of(crowd), 0U);
  const auto batch = spool->oldest_unacknowledged(0);
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->id, batch_id(1));
  EXPECT_EQ(batch->partition, 0U);
  ASSERT_EQ(batch->records.size(), in_0 - 1);
  for (std::size_t pos = 0; pos < batch->records.size(); ++pos) {
    EXPECT_EQ(batch->records[pos].crowd_id, seen[seen.size() - 1 - pos]);
  }
  EXPECT_FALSE(spool->oldest_unacknowledged(1));
  EXPECT_EQ(spool->unbatched(), 20U - in_0);
  EXPECT_EQ(spool->unacknowledged_batches(), 1U);
  EXPECT_EQ(spool->acknowledge(batch_id(1)), in_0 - 1);
  EXPECT_EQ(spool->depth(), 20U - in_0);
  EXPECT_FALSE(spool->oldest_unacknowledged(0));
}

TEST_F(PgSpoolTest, LeasesExpireByTheDatabaseClockAndFenceStaleCloses) {
  auto first = open(1);
  auto second = open(1);
  const EpochId a = epoch_of(1);
  first->open_epoch(a);
  ASSERT_EQ(first->insert({record(*first, 1, a), record(*first, 2, a)}).accepted, 2U);

  // Held for a minute while "second" is refused, however loaded the machine
  // is; then renewed for a short lease that "second" waits out.
  const auto lease = first->acquire_lease(0, "first", std::chrono::seconds(60));
  ASSERT_TRUE(lease);
  EXPECT_FALSE(second->acquire_lease(0, "second", std::chrono::seconds(10)));
  const auto renewed = first->acquire_lease(0, "first", std::chrono::seconds(30));
  ASSERT_TRUE(renewed);
  EXPECT_EQ(renewed->token, lease->token);  // a renewal keeps the token
  // The expiry is the database's: now() + ttl on its clock.
  const int64_t left_ms = scalar(
      "SELECT (extract(epoch FROM expires_at - clock_timestamp()) * 1000)::int8 "
      "FROM shuffler_leases WHERE part = 0");
  EXPECT_GT(left_ms, 0);
  EXPECT_LE(left_ms, 30000);
  ASSERT_TRUE(first->acquire_lease(0, "first", std::chrono::milliseconds(800)));

  // Waits for the expiry in a bounded number of tries (each 100 ms apart,
  // so a slow machine only makes the lease more expired).
  std::optional<Lease> taken;
  for (int i = 0; i < 300 && !taken; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    taken = second->acquire_lease(0, "second", std::chrono::seconds(10));
  }
  ASSERT_TRUE(taken);
  EXPECT_GT(taken->token, lease->token);
  // The first holder's close is fenced off and changes nothing.
  EXPECT_THROW(first->close_batch(batch_id(2), *lease, 100, keep_all), p2b::shuffler::LeaseLost);
  EXPECT_EQ(first->unbatched(), 2U);
  EXPECT_FALSE(first->acquire_lease(0, "first", std::chrono::seconds(10)));
  EXPECT_EQ(second->close_batch(batch_id(3), *taken, 100, keep_all).kept, 2U);
  // A clean release hands the partition over at once, with a new token.
  second->release_lease(*taken);
  const auto again = first->acquire_lease(0, "first", std::chrono::seconds(10));
  ASSERT_TRUE(again);
  EXPECT_GT(again->token, taken->token);
}

TEST_F(PgSpoolTest, ACloseStalledMidTransactionIsEndedByTheServerAndCannotCommit) {
  // A ttl of 1 s: the sessions' idle_in_transaction_session_timeout is
  // 500 ms. The first close stalls inside its transaction (as a SIGSTOPped
  // process would) while holding the lease row; the server ends that
  // session, the second holder takes the expired lease, and the stalled
  // close, retried on a new connection, finds its lease gone.
  const auto ttl = std::chrono::milliseconds(1000);
  auto first = open(1, ttl);
  auto second = open(1, ttl);
  const EpochId a = epoch_of(1);
  first->open_epoch(a);
  ASSERT_EQ(first->insert({record(*first, 1, a), record(*first, 2, a)}).accepted, 2U);
  const auto lease = first->acquire_lease(0, "first", ttl);
  ASSERT_TRUE(lease);
  std::optional<Lease> taken;
  std::thread rival([&] {
    for (int i = 0; i < 50 && !taken; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      try {
        taken = second->acquire_lease(0, "second", std::chrono::seconds(30));
      } catch (const p2b::shuffler::SpoolError&) {
        // Waited on the locked lease row past its statement timeout.
      }
    }
  });
  int calls = 0;
  EXPECT_THROW(first->close_batch(batch_id(1), *lease, 100,
                                  [&](const std::vector<uint32_t>& crowds) {
                                    if (calls++ == 0) std::this_thread::sleep_for(ttl * 3);
                                    return keep_all(crowds);
                                  }),
               p2b::shuffler::LeaseLost);
  rival.join();
  ASSERT_TRUE(taken);
  EXPECT_GT(taken->token, lease->token);
  EXPECT_EQ(first->unacknowledged_batches(), 0U);
  EXPECT_EQ(first->unbatched(), 2U);
  EXPECT_EQ(second->close_batch(batch_id(2), *taken, 100, keep_all).kept, 2U);
}

TEST_F(PgSpoolTest, NothingRecordsArrivalTimeOrOrder) {
  // Columns of the spool's own tables: no timestamp but the lease's expiry,
  // no serial or identity on records, seen or batches.
  auto spool = open(1);
  EXPECT_EQ(scalar("SELECT count(*) FROM information_schema.columns WHERE table_name LIKE "
                   "'shuffler_%' AND data_type LIKE 'time%' AND column_name <> 'expires_at'"),
            0);
  EXPECT_EQ(scalar("SELECT count(*) FROM information_schema.columns WHERE table_name LIKE "
                   "'shuffler_%' AND (column_default IS NOT NULL OR is_identity = 'YES') AND "
                   "table_name IN ('shuffler_records', 'shuffler_seen_inner', "
                   "'shuffler_batches')"),
            0);
  EXPECT_EQ(scalar("SELECT count(*) FROM pg_settings WHERE name = 'track_commit_timestamp' "
                   "AND setting = 'on'"),
            0);
}

TEST_F(PgSpoolTest, StorageCostPerEnvelopeAndPerEpoch) {
  // A figure for docs/shuffler.md: bytes of the replay tables and of stored
  // records per envelope, from pg_total_relation_size after 20k envelopes.
  auto spool = open(1);
  const EpochId a = epoch_of(1);
  spool->open_epoch(a);
  constexpr int kEnvelopes = 20000;
  for (int i = 0; i < kEnvelopes / 500; ++i) {
    std::vector<SpoolRecord> group;
    group.reserve(500);
    for (int j = 0; j < 500; ++j) group.push_back(record(*spool, static_cast<uint32_t>(j), a));
    ASSERT_EQ(spool->insert(group).accepted, 500U);
  }
  p2b::pg::Connection c(url_);
  c.exec("VACUUM ANALYZE");
  const auto size = [&](const char* table) {
    return c.query(std::string("SELECT pg_total_relation_size('") + table + "')").int8(0, 0);
  };
  const double seen = static_cast<double>(size("shuffler_seen_inner_e1"));
  const double records = static_cast<double>(size("shuffler_records"));
  std::printf(
      "storage per envelope: replay state %.1f B (kept for the epoch), record %.1f B "
      "(until its batch is acknowledged)\n",
      seen / kEnvelopes, records / kEnvelopes);
  RecordProperty("replay_bytes_per_envelope", std::to_string(seen / kEnvelopes));
  RecordProperty("record_bytes_per_envelope", std::to_string(records / kEnvelopes));
  EXPECT_GT(seen, 2.0 * 32 * kEnvelopes);  // two 32-byte digests each, at least
  EXPECT_EQ(spool->retire_epoch(a), static_cast<std::size_t>(kEnvelopes));
}

// The inner ciphertexts of a batch, to look records up among them.
std::set<std::vector<uint8_t>> inners_of(const p2b::server::Batch& batch) {
  std::set<std::vector<uint8_t>> out;
  for (const auto& r : batch.records) out.emplace(r.inner.begin(), r.inner.end());
  return out;
}

std::vector<uint8_t> inner_of(const SpoolRecord& r) {
  return {r.inner.begin(), r.inner.end()};
}

TEST_F(PgSpoolTest, ADamagedRowIsSetAsideAtCloseAndEveryOtherRecordIsBatched) {
  auto spool = open(1);
  const EpochId a = epoch_of(1);
  spool->open_epoch(a);
  std::vector<SpoolRecord> all;
  for (uint32_t i = 0; i < 10; ++i) all.push_back(record(*spool, 5, a));
  ASSERT_EQ(spool->insert(all).accepted, 10U);
  // One record's ciphertext and another's crowd id: the crowd id may be the
  // damaged part, so that row must not count towards any crowd either.
  flip_inner(all[3]);
  tamper("UPDATE shuffler_records SET crowd_id = 6 WHERE inner_ct = $1",
         p2b::pg::Params().bytes(all[7].inner.data(), all[7].inner.size()));
  const int64_t moved_crowd_row = scalar("SELECT id FROM shuffler_records WHERE crowd_id = 6");

  const auto lease = spool->acquire_lease(0, "me", std::chrono::seconds(30));
  ASSERT_TRUE(lease);
  std::vector<uint32_t> counted;
  const ClosedBatch closed =
      spool->close_batch(batch_id(1), *lease, 100, [&](const std::vector<uint32_t>& crowds) {
        counted = crowds;
        return keep_all(crowds);
      });
  EXPECT_EQ(closed.taken, 10U);
  EXPECT_EQ(closed.damaged, 2U);
  EXPECT_EQ(closed.kept, 8U);
  EXPECT_EQ(closed.thresholded, 0U);
  EXPECT_EQ(counted, std::vector<uint32_t>(8, 5));  // the damaged rows were never counted

  const auto batch = spool->oldest_unacknowledged(0);
  ASSERT_TRUE(batch);
  const auto sent = inners_of(*batch);
  EXPECT_EQ(sent.size(), 8U);
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(sent.count(inner_of(all[i])), i == 3 || i == 7 ? 0U : 1U) << i;
  }
  for (const auto& r : batch->records) EXPECT_EQ(r.crowd_id, 5U);
  EXPECT_EQ(spool->depth(), 8U);  // the damaged rows left the records

  EXPECT_TRUE(spool->has_quarantine());
  EXPECT_EQ(spool->quarantine_size(), 2U);
  const auto entries = spool->quarantined();
  ASSERT_EQ(entries.size(), 2U);
  std::set<std::string> origins;
  for (const auto& e : entries) {
    EXPECT_EQ(e.reason, p2b::shuffler::kDamagedInSpool);
    EXPECT_GT(e.quarantined_unix, 0);
    EXPECT_EQ(e.origin.rfind("unbatched row ", 0), 0U) << e.origin;
    origins.insert(e.origin);
  }
  EXPECT_EQ(origins.count("unbatched row " + std::to_string(moved_crowd_row)), 1U);
  // Nothing of a damaged row is kept: the quarantine has no bytes column.
  EXPECT_EQ(scalar("SELECT count(*) FROM information_schema.columns WHERE table_name = "
                   "'shuffler_quarantine' AND data_type = 'bytea'"),
            0);
}

TEST_F(PgSpoolTest, ACloseOfOnlyDamagedRowsSetsThemAsideAndMakesNoBatch) {
  auto spool = open(1);
  const EpochId a = epoch_of(1);
  spool->open_epoch(a);
  const SpoolRecord r = record(*spool, 5, a);
  ASSERT_EQ(spool->insert({r}).accepted, 1U);
  flip_inner(r);
  const auto lease = spool->acquire_lease(0, "me", std::chrono::seconds(30));
  ASSERT_TRUE(lease);
  const ClosedBatch closed = spool->close_batch(batch_id(1), *lease, 100, keep_all);
  EXPECT_EQ(closed.taken, 1U);
  EXPECT_EQ(closed.damaged, 1U);
  EXPECT_EQ(closed.kept, 0U);
  EXPECT_EQ(spool->unacknowledged_batches(), 0U);
  EXPECT_EQ(spool->depth(), 0U);
  EXPECT_EQ(spool->quarantine_size(), 1U);
}

TEST_F(PgSpoolTest, ADamagedRowOfAClosedBatchIsTakenOutWhenReadForDelivery) {
  auto spool = open(1);
  const EpochId a = epoch_of(1);
  spool->open_epoch(a);
  std::vector<SpoolRecord> all;
  for (uint32_t i = 0; i < 6; ++i) all.push_back(record(*spool, 5, a));
  ASSERT_EQ(spool->insert(all).accepted, 6U);
  const auto lease = spool->acquire_lease(0, "me", std::chrono::seconds(30));
  ASSERT_TRUE(lease);
  ASSERT_EQ(spool->close_batch(batch_id(1), *lease, 100, keep_all).kept, 6U);
  const auto before = spool->oldest_unacknowledged(0);
  ASSERT_TRUE(before);
  ASSERT_EQ(before->records.size(), 6U);

  tamper(
      "UPDATE shuffler_records SET inner_ct = set_byte(inner_ct, 56, get_byte(inner_ct, 56) # "
      "255) WHERE pos = 2");
  const auto batch = spool->oldest_unacknowledged(0);
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->id, batch_id(1));
  ASSERT_EQ(batch->records.size(), 5U);
  // The others keep their order; the damaged one is not sent.
  std::vector<std::vector<uint8_t>> expected;
  for (std::size_t pos = 0; pos < before->records.size(); ++pos) {
    if (pos == 2) continue;
    const auto& inner = before->records[pos].inner;
    expected.emplace_back(inner.begin(), inner.end());
  }
  for (std::size_t i = 0; i < batch->records.size(); ++i) {
    const auto& inner = batch->records[i].inner;
    EXPECT_EQ(std::vector<uint8_t>(inner.begin(), inner.end()), expected[i]) << i;
  }
  const auto entries = spool->quarantined();
  ASSERT_EQ(entries.size(), 1U);
  EXPECT_EQ(entries[0].reason, p2b::shuffler::kDamagedInSpool);
  EXPECT_EQ(entries[0].origin, "batch " + p2b::server::batch_id_hex(batch_id(1)) + " position 2");

  // Read again (a re-send): the same five records, nothing set aside twice.
  const auto again = spool->oldest_unacknowledged(0);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->records.size(), 5U);
  EXPECT_EQ(spool->quarantine_size(), 1U);
  EXPECT_EQ(spool->acknowledge(batch_id(1)), 5U);
  EXPECT_EQ(spool->depth(), 0U);
}

TEST_F(PgSpoolTest, ABatchWhoseEveryRowIsDamagedIsDroppedAndTheNextIsRead) {
  auto spool = open(1);
  const EpochId a = epoch_of(1);
  spool->open_epoch(a);
  const auto lease = spool->acquire_lease(0, "me", std::chrono::seconds(30));
  ASSERT_TRUE(lease);
  ASSERT_EQ(spool->insert({record(*spool, 5, a), record(*spool, 5, a)}).accepted, 2U);
  ASSERT_EQ(spool->close_batch(batch_id(1), *lease, 100, keep_all).kept, 2U);
  ASSERT_EQ(spool->insert({record(*spool, 5, a)}).accepted, 1U);
  ASSERT_EQ(spool->close_batch(batch_id(2), *lease, 100, keep_all).kept, 1U);
  const BatchId first = batch_id(1);
  tamper(
      "UPDATE shuffler_records SET inner_ct = set_byte(inner_ct, 56, get_byte(inner_ct, 56) # "
      "255) WHERE batch_id = $1",
      p2b::pg::Params().bytes(first.data(), first.size()));
  const auto batch = spool->oldest_unacknowledged(0);
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->id, batch_id(2));
  EXPECT_EQ(batch->records.size(), 1U);
  EXPECT_EQ(spool->unacknowledged_batches(), 1U);
  EXPECT_EQ(spool->quarantine_size(), 2U);
}

// What a store had before schema 3: two replay tables, the inner one
// without envelope digests.
constexpr const char* kUndoSchema3 =
    "ALTER TABLE shuffler_seen_inner DROP COLUMN envelope; "
    "CREATE TABLE shuffler_seen (epoch int4 NOT NULL, digest bytea NOT NULL, "
    "PRIMARY KEY (epoch, digest)) PARTITION BY LIST (epoch); ";

TEST_F(PgSpoolTest, AStoreOfSchema1GetsChecksumsFromItsRowsAndRefusesRowsWithoutOne) {
  {
    auto spool = open(1);
    const EpochId a = epoch_of(1);
    spool->open_epoch(a);
    std::vector<SpoolRecord> all;
    for (uint32_t i = 0; i < 3; ++i) all.push_back(record(*spool, 5, a));
    ASSERT_EQ(spool->insert(all).accepted, 3U);
  }
  // What a store of schema 1 looked like: no checksums, no quarantine.
  tamper(std::string(kUndoSchema3) +
         "ALTER TABLE shuffler_records DROP COLUMN row_sum; DROP TABLE shuffler_quarantine; "
         "UPDATE p2b_schema SET version = 1 WHERE component = 'shuffler'");
  auto spool = open(1);
  EXPECT_EQ(scalar("SELECT version::int8 FROM p2b_schema WHERE component = 'shuffler'"), 3);
  EXPECT_EQ(scalar("SELECT count(*) FROM shuffler_records WHERE row_sum IS NULL"), 0);
  const auto lease = spool->acquire_lease(0, "me", std::chrono::seconds(30));
  ASSERT_TRUE(lease);
  const ClosedBatch closed = spool->close_batch(batch_id(1), *lease, 100, keep_all);
  EXPECT_EQ(closed.kept, 3U);
  EXPECT_EQ(closed.damaged, 0U);
  EXPECT_EQ(spool->quarantine_size(), 0U);
  // A process of the older release, still running, cannot store a row
  // without a checksum (which a close would set aside as damaged).
  EXPECT_THROW(tamper("INSERT INTO shuffler_records (id, part, crowd_id, inner_ct) "
                      "VALUES (1, 0, 5, '\\x00'::bytea)"),
               p2b::pg::Error);
}

TEST_F(PgSpoolTest, AStoreOfSchema2KeepsRefusingItsReplaysWithOneReplayTable) {
  const EpochId a = epoch_of(1);
  SpoolRecord old_envelope;
  {
    auto spool = open(1);
    spool->open_epoch(a);
    old_envelope = record(*spool, 5, a);
    ASSERT_EQ(spool->insert({old_envelope}).accepted, 1U);
  }
  tamper(std::string(kUndoSchema3) +
         "CREATE TABLE shuffler_seen_e1 PARTITION OF shuffler_seen FOR VALUES IN (1); "
         "UPDATE p2b_schema SET version = 2 WHERE component = 'shuffler'");
  tamper("INSERT INTO shuffler_seen (epoch, digest) VALUES (1, $1)",
         p2b::pg::Params().bytes(old_envelope.digest.data(), old_envelope.digest.size()));
  auto spool = open(1);
  EXPECT_EQ(scalar("SELECT version::int8 FROM p2b_schema WHERE component = 'shuffler'"), 3);
  EXPECT_EQ(scalar("SELECT count(*) FROM pg_class WHERE relname LIKE 'shuffler_seen_e%'"), 0);
  // The envelope seen before the upgrade is refused, as is its inner
  // re-sealed; its row kept no envelope digest, so both count as re-sealed.
  SpoolRecord resealed = old_envelope;
  randombytes_buf(resealed.digest.data(), resealed.digest.size());
  const auto counts = spool->insert({old_envelope, resealed});
  EXPECT_EQ(counts.accepted, 0U);
  EXPECT_EQ(counts.duplicates + counts.inner_duplicates, 2U);
  EXPECT_EQ(spool->depth(), 1U);
  // Envelopes seen from now on tell a re-send from a re-sealed inner again.
  const SpoolRecord fresh = record(*spool, 6, a);
  ASSERT_EQ(spool->insert({fresh}).accepted, 1U);
  EXPECT_EQ(spool->insert({fresh}).duplicates, 1U);
}

// Runs `p2b-shuffler quarantine` in-process; its standard output in `out`.
int quarantine(std::vector<std::string> args, std::string* out) {
  args.insert(args.begin(), "quarantine");
  std::vector<const char*> argv;
  argv.reserve(args.size());
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  testing::internal::CaptureStdout();
  const int rc = p2b::shuffler::quarantine_main(static_cast<int>(argv.size()), argv.data());
  *out = testing::internal::GetCapturedStdout();
  return rc;
}

TEST_F(PgSpoolTest, QuarantineListAndPurgeWorkOnAPostgresqlStore) {
  auto spool = open(1);
  const EpochId a = epoch_of(1);
  spool->open_epoch(a);
  const SpoolRecord r = record(*spool, 5, a);
  ASSERT_EQ(spool->insert({r, record(*spool, 5, a)}).accepted, 2U);
  flip_inner(r);
  const auto lease = spool->acquire_lease(0, "me", std::chrono::seconds(30));
  ASSERT_TRUE(lease);
  ASSERT_EQ(spool->close_batch(batch_id(1), *lease, 100, keep_all).damaged, 1U);
  ASSERT_EQ(url_.rfind("postgresql://", 0), 0U) << url_;

  // While the spool is open elsewhere: a shared store is listed and purged live.
  std::string out;
  ASSERT_EQ(quarantine({"list", "--store", url_}, &out), p2b::common::kExitClean) << out;
  EXPECT_NE(out.find("1 records in quarantine"), std::string::npos) << out;
  EXPECT_NE(out.find("reason damaged_in_spool: 1"), std::string::npos) << out;
  EXPECT_NE(out.find(" unbatched row "), std::string::npos) << out;
  ASSERT_EQ(quarantine({"list", "--store", url_, "--reason", "other"}, &out),
            p2b::common::kExitClean);
  EXPECT_NE(out.find("0 records in quarantine"), std::string::npos) << out;

  EXPECT_EQ(quarantine({"retry", "--store", url_}, &out), p2b::common::kExitUsage);
  ASSERT_EQ(quarantine({"purge", "--store", url_, "--older-than", "1"}, &out),
            p2b::common::kExitClean);
  EXPECT_NE(out.find("purged 0 records"), std::string::npos) << out;
  ASSERT_EQ(quarantine({"purge", "--store", url_, "--reason", "other"}, &out),
            p2b::common::kExitClean);
  EXPECT_NE(out.find("purged 0 records"), std::string::npos) << out;
  EXPECT_EQ(spool->quarantine_size(), 1U);
  ASSERT_EQ(
      quarantine({"purge", "--store", url_, "--reason", "damaged_in_spool", "--older-than", "0"},
                 &out),
      p2b::common::kExitClean);
  EXPECT_NE(out.find("purged 1 records"), std::string::npos) << out;
  EXPECT_EQ(spool->quarantine_size(), 0U);
  EXPECT_EQ(spool->unacknowledged_batches(), 1U);  // the batch is not the quarantine's
}

TEST_F(PgSpoolTest, TheQuarantineCommandDoesNotCreateAStore) {
  std::string out;
  EXPECT_EQ(quarantine({"list", "--store", url_}, &out), p2b::common::kExitFailure);
  EXPECT_EQ(scalar("SELECT count(*) FROM pg_class WHERE relname LIKE 'shuffler%'"), 0);
}

}  // namespace
