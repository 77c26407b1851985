// The SQLite spool: replays count once forever, inserts are all or nothing,
// batches are assigned atomically and survive a reopen with their id and
// order, and only an acknowledgement deletes them.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "common/sqlite_db.hpp"
#include "shuffler/shuffle.hpp"
#include "shuffler/sqlite_spool.hpp"
#include "shuffler_test_support.hpp"

namespace {

using p2b::server::BatchId;
using p2b::shuffler::SpoolRecord;
using p2b::shuffler::SqliteSpool;
using shuffler_test::record;

// Keeps everything, in the order taken.
std::vector<std::size_t> keep_all(const std::vector<uint32_t>& crowds) {
  std::vector<std::size_t> all(crowds.size());
  std::iota(all.begin(), all.end(), 0);
  return all;
}

BatchId id_of(uint8_t b) {
  BatchId id{};
  id.fill(b);
  return id;
}

TEST(ShufflerSpool, StoresNewRecordsAndCountsReplaysWithinARequest) {
  shuffler_test::TempDir dir;
  SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key());
  const SpoolRecord a = record(1, 1);
  const SpoolRecord b = record(1, 2);
  const auto counts = spool.insert({a, b, a});
  EXPECT_EQ(counts.accepted, 2U);
  EXPECT_EQ(counts.duplicates, 1U);
  EXPECT_EQ(spool.depth(), 2U);
  EXPECT_EQ(spool.unbatched(), 2U);
}

TEST(ShufflerSpool, AnInnerInAFreshEnvelopeIsAReplayToo) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("spool.db");
  const SpoolRecord a = record(1, 1);
  SpoolRecord resealed = a;  // another outer digest, the same inner
  resealed.digest[0] ^= 1;
  SpoolRecord resealed2 = a;
  resealed2.digest[1] ^= 1;
  {
    SqliteSpool spool(path, shuffler_test::spool_key());
    const auto counts = spool.insert({a, resealed});
    EXPECT_EQ(counts.accepted, 1U);
    EXPECT_EQ(counts.duplicates, 0U);
    EXPECT_EQ(counts.inner_duplicates, 1U);
    ASSERT_EQ(spool.close_batch(id_of(1), shuffler_test::lease_of(spool), 10, keep_all).kept, 1U);
    ASSERT_EQ(spool.acknowledge(id_of(1)), 1U);
  }
  // Across all time: after its batch went, and after a reopen.
  SqliteSpool spool(path, shuffler_test::spool_key());
  const auto later = spool.insert({resealed2});
  EXPECT_EQ(later.accepted, 0U);
  EXPECT_EQ(later.inner_duplicates, 1U);
  EXPECT_EQ(spool.depth(), 0U);
}

TEST(ShufflerSpool, AReplayIsCaughtEvenAfterItsBatchWasDeleted) {
  shuffler_test::TempDir dir;
  auto spool_ptr = std::make_unique<SqliteSpool>(dir.file("spool.db"), shuffler_test::spool_key());
  SqliteSpool& spool = *spool_ptr;
  const SpoolRecord a = record(7, 1);
  ASSERT_EQ(spool.insert({a}).accepted, 1U);
  ASSERT_EQ(spool.close_batch(id_of(1), shuffler_test::lease_of(spool), 100, keep_all).kept, 1U);
  ASSERT_EQ(spool.acknowledge(id_of(1)), 1U);
  ASSERT_EQ(spool.depth(), 0U);

  const auto again = spool.insert({a});
  EXPECT_EQ(again.accepted, 0U);
  EXPECT_EQ(again.duplicates, 1U);
  EXPECT_EQ(spool.depth(), 0U);

  // Also when the record was thresholded away instead of forwarded, and
  // after a reopen.
  const SpoolRecord b = record(8, 1);
  ASSERT_EQ(spool.insert({b}).accepted, 1U);
  ASSERT_EQ(spool
                .close_batch(id_of(2), shuffler_test::lease_of(spool), 100,
                             [](const auto&) { return std::vector<std::size_t>{}; })
                .thresholded,
            1U);
  spool_ptr.reset();  // one process (and one open) per store
  SqliteSpool reopened(dir.file("spool.db"), shuffler_test::spool_key());
  EXPECT_EQ(reopened.insert({a, b}).duplicates, 2U);
}

TEST(ShufflerSpool, AnInsertThatFailsPartwayStoresNothing) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("spool.db");
  SqliteSpool spool(path, shuffler_test::spool_key());
  // A trigger on a second connection makes the third row of any insert fail.
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other,
                         "CREATE TRIGGER third_fails BEFORE INSERT ON records_sealed "
                         "WHEN (SELECT COUNT(*) FROM records_sealed) >= 2 "
                         "BEGIN SELECT RAISE(ABORT, 'injected'); END",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  const std::vector<SpoolRecord> three = {record(1, 1), record(1, 2), record(1, 3)};
  EXPECT_THROW(spool.insert(three), p2b::shuffler::SpoolError);
  EXPECT_EQ(spool.depth(), 0U);

  ASSERT_EQ(sqlite3_exec(other, "DROP TRIGGER third_fails", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(other);
  // Not even the replay table kept them: nothing counts as a duplicate.
  const auto counts = spool.insert(three);
  EXPECT_EQ(counts.accepted, 3U);
  EXPECT_EQ(counts.duplicates, 0U);
}

TEST(ShufflerSpool, ACrowdBelowTheThresholdNeverReachesABatch) {
  shuffler_test::TempDir dir;
  SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key());
  std::vector<SpoolRecord> records;
  for (uint32_t i = 0; i < 12; ++i) records.push_back(record(100, i));  // at L
  for (uint32_t i = 0; i < 9; ++i) records.push_back(record(200, i));   // L - 1
  for (uint32_t i = 0; i < 1; ++i) records.push_back(record(300, i));
  ASSERT_EQ(spool.insert(records).accepted, records.size());

  const p2b::shuffler::ThresholdPolicy policy{10, 0};
  const auto closed = spool.close_batch(
      id_of(9), shuffler_test::lease_of(spool), 1000, [&](const std::vector<uint32_t>& crowds) {
        return p2b::shuffler::shuffle_and_threshold(crowds, policy);
      });
  EXPECT_EQ(closed.taken, 22U);
  EXPECT_EQ(closed.kept, 12U);
  EXPECT_EQ(closed.thresholded, 10U);
  EXPECT_EQ(spool.depth(), 12U);  // the thresholded records are gone
  EXPECT_EQ(spool.unbatched(), 0U);

  const auto batch = spool.oldest_unacknowledged(0);
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(batch->id, id_of(9));
  ASSERT_EQ(batch->records.size(), 12U);
  for (const auto& r : batch->records) {
    EXPECT_EQ(r.crowd_id, 100U);
    EXPECT_EQ(shuffler_test::crowd_of(r.inner), 100U);
  }
}

TEST(ShufflerSpool, NothingSurvivingMakesNoBatch) {
  shuffler_test::TempDir dir;
  SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key());
  EXPECT_EQ(spool.close_batch(id_of(1), shuffler_test::lease_of(spool), 10, keep_all).taken, 0U);
  ASSERT_EQ(spool.insert({record(1, 1), record(2, 1)}).accepted, 2U);
  const auto closed = spool.close_batch(id_of(1), shuffler_test::lease_of(spool), 10,
                                        [](const auto&) { return std::vector<std::size_t>{}; });
  EXPECT_EQ(closed.thresholded, 2U);
  EXPECT_FALSE(spool.oldest_unacknowledged(0).has_value());
  EXPECT_EQ(spool.depth(), 0U);
}

TEST(ShufflerSpool, OnlyAnAcknowledgementDeletesABatch) {
  shuffler_test::TempDir dir;
  SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key());
  ASSERT_EQ(spool.insert({record(1, 1), record(1, 2)}).accepted, 2U);
  ASSERT_EQ(spool.close_batch(id_of(1), shuffler_test::lease_of(spool), 10, keep_all).kept, 2U);
  ASSERT_EQ(spool.insert({record(1, 3)}).accepted, 1U);
  ASSERT_EQ(spool.close_batch(id_of(2), shuffler_test::lease_of(spool), 10, keep_all).kept, 1U);

  // Oldest first, and asking again does not consume it.
  EXPECT_EQ(spool.oldest_unacknowledged(0)->id, id_of(1));
  EXPECT_EQ(spool.oldest_unacknowledged(0)->id, id_of(1));
  EXPECT_EQ(spool.depth(), 3U);
  EXPECT_EQ(spool.acknowledge(id_of(1)), 2U);
  EXPECT_EQ(spool.depth(), 1U);
  EXPECT_EQ(spool.oldest_unacknowledged(0)->id, id_of(2));
  EXPECT_EQ(spool.acknowledge(id_of(1)), 0U);  // a second ack is harmless
  EXPECT_EQ(spool.acknowledge(id_of(2)), 1U);
  EXPECT_FALSE(spool.oldest_unacknowledged(0).has_value());
}

TEST(ShufflerSpool, AnAssignedBatchSurvivesAReopenWithItsIdAndOrder) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("spool.db");
  std::vector<SpoolRecord> records;
  for (uint32_t i = 0; i < 50; ++i) records.push_back(record(5, i));
  for (SpoolRecord& r : records) r.partition = 9;
  SpoolRecord late = record(6, 0);
  late.partition = 9;
  p2b::server::Batch before;
  {
    SqliteSpool spool(path, shuffler_test::spool_key(), 9);
    ASSERT_EQ(spool.insert(records).accepted, 50U);
    const p2b::shuffler::ThresholdPolicy policy{1, 0};
    ASSERT_EQ(spool
                  .close_batch(id_of(0x42), shuffler_test::lease_of(spool), 1000,
                               [&](const std::vector<uint32_t>& crowds) {
                                 return p2b::shuffler::shuffle_and_threshold(crowds, policy);
                               })
                  .kept,
              50U);
    before = *spool.oldest_unacknowledged(9);
    // Records added after the batch closed stay out of it.
    ASSERT_EQ(spool.insert({late}).accepted, 1U);
  }
  SqliteSpool reopened(path, shuffler_test::spool_key(), 9);
  const auto after = reopened.oldest_unacknowledged(9);
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(after->id, id_of(0x42));
  EXPECT_EQ(after->partition, 9U);
  EXPECT_EQ(after->records, before.records);
  EXPECT_EQ(reopened.unbatched(), 1U);
  EXPECT_EQ(reopened.depth(), 51U);
}

TEST(ShufflerSpool, TakesAtMostTheRequestedNumberOfRecords) {
  shuffler_test::TempDir dir;
  SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key());
  std::vector<SpoolRecord> records;
  for (uint32_t i = 0; i < 10; ++i) records.push_back(record(1, i));
  ASSERT_EQ(spool.insert(records).accepted, 10U);
  EXPECT_EQ(spool.close_batch(id_of(1), shuffler_test::lease_of(spool), 4, keep_all).kept, 4U);
  EXPECT_EQ(spool.unbatched(), 6U);
}

TEST(ShufflerSpool, RefusesAFileThatIsNotASpool) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("not-a-db");
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    const std::string junk(4096, 'x');
    std::fwrite(junk.data(), 1, junk.size(), f);
    std::fclose(f);
  }
  // Damage is a refusal (exit 4); a path that cannot be opened is not.
  EXPECT_THROW(SqliteSpool spool(path, shuffler_test::spool_key()), p2b::common::StoreRefused);
  EXPECT_THROW(SqliteSpool spool(dir.file("no/such/dir/spool.db"), shuffler_test::spool_key()),
               p2b::shuffler::SpoolError);
}

// Delivered records give their pages back (auto_vacuum=INCREMENTAL): across
// fill and drain cycles the file grows only by the replay digests it must
// keep (one sealed row of two 32-byte digests a record), not by the
// records themselves.
TEST(ShufflerSpool, TheFileStopsGrowingAcrossFillAndDrainCycles) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("spool.db");
  SqliteSpool spool(path, shuffler_test::spool_key());
  constexpr uint32_t kPerCycle = 3000;
  std::vector<std::uintmax_t> drained;
  std::uintmax_t full = 0;
  for (uint8_t cycle = 0; cycle < 4; ++cycle) {
    std::vector<SpoolRecord> rs;
    for (uint32_t i = 0; i < kPerCycle; ++i) rs.push_back(record(1, cycle * kPerCycle + i));
    ASSERT_EQ(spool.insert(rs).accepted, kPerCycle);
    full = std::max(full, std::filesystem::file_size(path));
    ASSERT_EQ(
        spool.close_batch(id_of(cycle + 1), shuffler_test::lease_of(spool), kPerCycle, keep_all)
            .kept,
        kPerCycle);
    ASSERT_EQ(spool.acknowledge(id_of(cycle + 1)), kPerCycle);
    ASSERT_TRUE(spool.settle(std::chrono::seconds(10))) << "the checkpointer ran";
    drained.push_back(std::filesystem::file_size(path));
    EXPECT_EQ(std::filesystem::file_size(path + "-wal"), 0U);
  }
  std::printf("spool file: %ju bytes full, drained %ju -> %ju after 4 cycles of %u records\n", full,
              drained.front(), drained.back(), kPerCycle);
  for (std::size_t i = 1; i < drained.size(); ++i) {
    // The replay rows of one cycle, one a record: epoch, keyed tag and the
    // two digests sealed (16 + 32 + 24 + 64 + 16 = 152 bytes); under 250
    // bytes a record with b-tree slack.
    EXPECT_LE(drained[i] - drained[i - 1], uintmax_t{250} * kPerCycle) << "cycle " << i;
  }
  EXPECT_LT(drained.front() + uintmax_t{100} * kPerCycle, full)
      << "the records' pages were given back";
}

// Between batch closes nothing truncates the WAL, and SQLite's automatic
// checkpoint is replaced by the checkpointer thread's (off the request
// path): it must still keep the WAL from growing with every commit.
TEST(ShufflerSpool, BetweenClosesTheCheckpointerKeepsTheWalBounded) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("spool.db");
  SqliteSpool spool(path, shuffler_test::spool_key());
  constexpr uint32_t kCommits = 80;
  constexpr uint32_t kPerCommit = 100;  // about 150 random pages a commit
  std::uintmax_t largest = 0;
  for (uint32_t c = 0; c < kCommits; ++c) {
    std::vector<SpoolRecord> rs;
    for (uint32_t i = 0; i < kPerCommit; ++i) rs.push_back(record(1, c * kPerCommit + i));
    ASSERT_EQ(spool.insert(rs).accepted, kPerCommit);
    largest = std::max(largest, std::filesystem::file_size(path + "-wal"));
  }
  std::printf("largest WAL: %ju bytes over %u commits of %u records\n", largest, kCommits,
              kPerCommit);
  // Unchecked, the WAL would pass 45 MiB; checkpoints every
  // kCheckpointFrames pages (16 MiB) restart it, with slack for a
  // checkpoint that lags the commits.
  EXPECT_LT(largest, std::uintmax_t{2} * SqliteSpool::kCheckpointFrames * 4096);
  EXPECT_EQ(spool.unbatched(), std::size_t{kCommits} * kPerCommit);
}

// A spool of schema 2, from before application_id and auto_vacuum, is
// upgraded in place and keeps its records, its closed batch (id and order)
// and its replay digests, outer and inner.
TEST(ShufflerSpool, ASpoolOfSchema2IsUpgradedInPlace) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("spool.db");
  const SpoolRecord a = record(3, 1);
  const SpoolRecord b0 = record(4, 2);
  const SpoolRecord b1 = record(4, 3);
  const SpoolRecord c = record(5, 4);  // only its inner digest was kept
  {
    p2b::common::Database raw(path);
    raw.exec(R"sql(
CREATE TABLE seen (digest BLOB PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE seen_inner (digest BLOB PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE records (id INTEGER PRIMARY KEY, crowd_id INTEGER NOT NULL, inner BLOB NOT NULL,
  batch_id BLOB, position INTEGER);
CREATE INDEX records_by_batch ON records (batch_id, position);
CREATE TABLE batches (seq INTEGER PRIMARY KEY AUTOINCREMENT, id BLOB NOT NULL UNIQUE,
  partition_id INTEGER NOT NULL DEFAULT 0);
PRAGMA user_version=2;
)sql");
    p2b::common::Statement put(raw, "INSERT INTO seen (digest) VALUES (?1)");
    put.bind_blob(1, a.digest.data(), a.digest.size());
    put.run();
    p2b::common::Statement inner(raw, "INSERT INTO seen_inner (digest) VALUES (?1)");
    inner.bind_blob(1, c.inner_digest.data(), c.inner_digest.size());
    inner.run();
    p2b::common::Statement rec(raw, "INSERT INTO records (id, crowd_id, inner) VALUES (7, 3, ?1)");
    rec.bind_blob(1, a.inner.data(), a.inner.size());
    rec.run();
    const BatchId batch = id_of(9);
    // Stored out of their batch order, by id.
    p2b::common::Statement batched(raw,
                                   "INSERT INTO records (id, crowd_id, inner, batch_id, position) "
                                   "VALUES (?1, 4, ?2, ?3, ?4)");
    for (const auto& [id, r, position] :
         std::vector<std::tuple<int64_t, SpoolRecord, int64_t>>{{1, b1, 1}, {2, b0, 0}}) {
      batched.bind_int(1, id);
      batched.bind_blob(2, r.inner.data(), r.inner.size());
      batched.bind_blob(3, batch.data(), batch.size());
      batched.bind_int(4, position);
      batched.run();
    }
    p2b::common::Statement closed(raw, "INSERT INTO batches (id) VALUES (?1)");
    closed.bind_blob(1, batch.data(), batch.size());
    closed.run();
  }
  {
    SqliteSpool spool(path, shuffler_test::spool_key());
    EXPECT_EQ(spool.depth(), 3U);
    EXPECT_EQ(spool.unbatched(), 1U);
    EXPECT_EQ(spool.unacknowledged_batches(), 1U);
    const auto batch = spool.oldest_unacknowledged(0);
    ASSERT_TRUE(batch.has_value());
    EXPECT_EQ(batch->id, id_of(9));
    ASSERT_EQ(batch->records.size(), 2U);
    EXPECT_EQ(batch->records[0].inner, b0.inner) << "in its assigned order";
    EXPECT_EQ(batch->records[1].inner, b1.inner);
    EXPECT_EQ(spool.insert({a}).duplicates, 1U) << "its replay digests are kept";
    SpoolRecord resealed = c;  // a fresh outer layer around the old inner
    resealed.digest[0] ^= 1;
    EXPECT_EQ(spool.insert({resealed}).inner_duplicates, 1U);
    // Under any key: the legacy digests know no key, so they fail closed.
    SpoolRecord under_a_key = a;
    under_a_key.epoch.fill(0x5a);
    spool.open_epoch(under_a_key.epoch);
    EXPECT_EQ(spool.insert({under_a_key}).duplicates, 1U);
    EXPECT_EQ(spool.acknowledge(id_of(9)), 2U);
    // Retiring the legacy epoch drops the old digests.
    EXPECT_EQ(spool.retire_epoch(p2b::shuffler::EpochId{}), 2U);
    EXPECT_EQ(spool.insert({under_a_key}).accepted, 1U);
  }
  p2b::common::Database raw(path);
  for (const auto& [pragma, want] :
       std::vector<std::pair<std::string, int64_t>>{{"PRAGMA auto_vacuum", 2},
                                                    {"PRAGMA user_version", 6},
                                                    {"PRAGMA application_id", 0x50324253}}) {
    p2b::common::Statement q(raw, pragma);
    ASSERT_TRUE(q.step());
    EXPECT_EQ(q.column_int(0), want) << pragma;
  }
  p2b::common::Statement old_tables(
      raw,
      "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('seen_inner', 'records_by_batch', "
      "'seen', 'seen_legacy', 'records', 'batched')");
  ASSERT_TRUE(old_tables.step());
  EXPECT_EQ(old_tables.column_int(0), 0) << "the old plaintext tables and index are gone";
}

// A spool of schema 3 (auto_vacuum and application_id already, one replay
// set for every key) moves to schema 4 without a VACUUM, keeping its
// records and its outer and inner digests.
TEST(ShufflerSpool, ASpoolOfSchema3IsUpgradedInPlace) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("spool.db");
  const SpoolRecord a = record(3, 1);
  const SpoolRecord c = record(5, 2);
  {
    p2b::common::Database raw(path, /*incremental_vacuum=*/true);
    raw.exec(R"sql(
PRAGMA application_id=1345471059;
CREATE TABLE seen (digest BLOB PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE seen_inner (digest BLOB PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE records (id INTEGER PRIMARY KEY, crowd_id INTEGER NOT NULL, inner BLOB NOT NULL,
  batch_id BLOB, position INTEGER);
CREATE INDEX records_by_batch ON records (batch_id, position);
CREATE TABLE batches (seq INTEGER PRIMARY KEY AUTOINCREMENT, id BLOB NOT NULL UNIQUE,
  partition_id INTEGER NOT NULL DEFAULT 0);
PRAGMA user_version=3;
)sql");
    p2b::common::Statement put(raw, "INSERT INTO seen (digest) VALUES (?1)");
    put.bind_blob(1, a.digest.data(), a.digest.size());
    put.run();
    p2b::common::Statement inner(raw, "INSERT INTO seen_inner (digest) VALUES (?1)");
    inner.bind_blob(1, c.inner_digest.data(), c.inner_digest.size());
    inner.run();
    p2b::common::Statement rec(raw, "INSERT INTO records (id, crowd_id, inner) VALUES (7, 3, ?1)");
    rec.bind_blob(1, a.inner.data(), a.inner.size());
    rec.run();
  }
  SqliteSpool spool(path, shuffler_test::spool_key());
  EXPECT_EQ(spool.unbatched(), 1U);
  EXPECT_EQ(spool.insert({a}).duplicates, 1U);
  SpoolRecord resealed = c;
  resealed.digest[0] ^= 1;
  EXPECT_EQ(spool.insert({resealed}).inner_duplicates, 1U);
  EXPECT_EQ(spool.close_batch(id_of(1), shuffler_test::lease_of(spool), 10, keep_all).kept, 1U);
  const auto batch = spool.oldest_unacknowledged(0);
  ASSERT_TRUE(batch.has_value());
  ASSERT_EQ(batch->records.size(), 1U);
  EXPECT_EQ(batch->records[0].inner, a.inner);
}

// Re-sending an envelope whose inner was already a replay is refused too.
TEST(ShufflerSpool, AReplayOfARefusedResealIsRefused) {
  shuffler_test::TempDir dir;
  SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key());
  const SpoolRecord a = record(1, 1);
  SpoolRecord resealed = a;
  resealed.digest[0] ^= 1;
  ASSERT_EQ(spool.insert({a}).accepted, 1U);
  EXPECT_EQ(spool.insert({resealed}).inner_duplicates, 1U);
  const auto again = spool.insert({resealed, a});
  EXPECT_EQ(again.accepted, 0U);
  EXPECT_EQ(again.inner_duplicates, 1U) << "its own outer was never stored";
  EXPECT_EQ(again.duplicates, 1U);
  EXPECT_EQ(spool.depth(), 1U);
}

p2b::shuffler::EpochId epoch_of(uint8_t b) {
  p2b::shuffler::EpochId e{};
  e.fill(b);
  return e;
}

SpoolRecord in_epoch(SpoolRecord r, uint8_t epoch) {
  r.epoch = epoch_of(epoch);
  return r;
}

TEST(ShufflerSpoolEpochs, ReplayStateIsPerEpochAndRetiringDropsItAndRefusesTheKey) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("spool.db");
  const SpoolRecord a = record(1, 1);
  {
    SqliteSpool spool(path, shuffler_test::spool_key());
    spool.open_epoch(epoch_of(1));
    spool.open_epoch(epoch_of(2));
    EXPECT_EQ(spool.insert({in_epoch(a, 1)}).accepted, 1U);
    EXPECT_EQ(spool.insert({in_epoch(a, 1)}).duplicates, 1U);
    // The same digest under another key is another envelope.
    EXPECT_EQ(spool.insert({in_epoch(a, 2)}).accepted, 1U);

    EXPECT_EQ(spool.retire_epoch(epoch_of(1)), 1U) << "its one replay entry";
    EXPECT_TRUE(spool.epoch_retired(epoch_of(1)));
    EXPECT_FALSE(spool.epoch_retired(epoch_of(2)));
    // A request with one record of the retired key stores nothing at all.
    const auto counts = spool.insert({in_epoch(record(1, 7), 2), in_epoch(a, 1)});
    EXPECT_EQ(counts.retired, 1U);
    EXPECT_EQ(counts.accepted, 0U);
    EXPECT_EQ(spool.depth(), 2U) << "the records it had accepted stay";
    EXPECT_EQ(spool.insert({in_epoch(record(1, 7), 2)}).accepted, 1U);
  }
  SqliteSpool reopened(path, shuffler_test::spool_key());
  EXPECT_TRUE(reopened.epoch_retired(epoch_of(1)));
  EXPECT_THROW(reopened.open_epoch(epoch_of(1)), p2b::shuffler::EpochRetired);
  reopened.open_epoch(epoch_of(2));
  EXPECT_EQ(reopened.insert({in_epoch(a, 2)}).duplicates, 1U) << "epoch 2 kept its state";
  EXPECT_EQ(reopened.insert({in_epoch(a, 1)}).retired, 1U);
}

TEST(ShufflerSpoolEpochs, ARecordOfAnEpochNeverOpenedIsAnErrorAndStoresNothing) {
  shuffler_test::TempDir dir;
  SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key());
  spool.open_epoch(epoch_of(1));
  EXPECT_THROW(spool.insert({in_epoch(record(1, 1), 1), in_epoch(record(1, 2), 9)}),
               p2b::shuffler::SpoolError);
  EXPECT_EQ(spool.depth(), 0U);
}

TEST(ShufflerSpoolLeases, OneHolderAtATimeAndAStaleTokenCannotClose) {
  shuffler_test::TempDir dir;
  SqliteSpool spool(dir.file("spool.db"), shuffler_test::spool_key());
  shuffler_test::fill(&spool, 1, 5);
  using std::chrono::milliseconds;
  // Held for a minute while "b" is refused, however loaded the machine is;
  // then renewed for 200 ms only, and let run out: sleeping longer than the
  // lease can only make it more expired.
  const auto first = spool.acquire_lease(0, "a", milliseconds(60000));
  ASSERT_TRUE(first.has_value());
  EXPECT_FALSE(spool.acquire_lease(0, "b", milliseconds(60000)).has_value());
  const auto renewed = spool.acquire_lease(0, "a", milliseconds(200));
  ASSERT_TRUE(renewed.has_value());
  EXPECT_EQ(renewed->token, first->token) << "a renewal keeps the token";

  std::this_thread::sleep_for(milliseconds(300));  // a lease that ran out
  EXPECT_THROW(spool.close_batch(id_of(1), *first, 10, keep_all), p2b::shuffler::LeaseLost);
  const auto taken = spool.acquire_lease(0, "b", milliseconds(60000));
  ASSERT_TRUE(taken.has_value());
  EXPECT_GT(taken->token, first->token);
  EXPECT_THROW(spool.close_batch(id_of(1), *first, 10, keep_all), p2b::shuffler::LeaseLost);
  EXPECT_EQ(spool.unbatched(), 5U) << "a fenced close changes nothing";
  EXPECT_EQ(spool.close_batch(id_of(2), *taken, 10, keep_all).kept, 5U);

  spool.release_lease(*taken);
  EXPECT_TRUE(spool.acquire_lease(0, "a", milliseconds(200)).has_value()) << "released at once";
  EXPECT_THROW(spool.acquire_lease(1, "a", milliseconds(200)), p2b::shuffler::SpoolError);
}

}  // namespace
