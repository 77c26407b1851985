// Row integrity in the SQLite spool (issue #28): a record whose bytes
// changed inside a well-formed page is set aside as damaged_in_spool, never
// sent to the analyzer, while every other record is; and the
// `p2b-shuffler quarantine` subcommand lists and purges what was set aside.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "common/exit_codes.hpp"
#include "plain_spool.hpp"
#include "shuffler/batcher.hpp"
#include "shuffler/metrics.hpp"
#include "shuffler/quarantine_main.hpp"
#include "shuffler/sealed_rows.hpp"
#include "shuffler/sqlite_spool.hpp"
#include "shuffler_test_support.hpp"

namespace {

using p2b::shuffler::Batcher;
using p2b::shuffler::SqliteSpool;

constexpr uint32_t kPartition = 0;

std::vector<std::size_t> keep_all(const std::vector<uint32_t>& crowds) {
  std::vector<std::size_t> all(crowds.size());
  std::iota(all.begin(), all.end(), 0);
  return all;
}

// Runs SQL on the spool file directly, as a damaged disk would change it:
// the page stays well-formed, only a row's bytes differ.
void tamper(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err != nullptr ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

// Flips the bits of one byte in the middle of one unbatched record's sealed
// value and returns that record's inner ciphertext (opened with the test's
// key before the damage), so the test can look for it among what was sent.
std::vector<uint8_t> flip_one_inner(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  EXPECT_EQ(
      sqlite3_prepare_v2(db, "SELECT id, sealed FROM records_sealed LIMIT 1", -1, &q, nullptr),
      SQLITE_OK);
  std::vector<uint8_t> sealed;
  int64_t id = 0;
  if (sqlite3_step(q) == SQLITE_ROW) {
    id = sqlite3_column_int64(q, 0);
    const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(q, 1));
    sealed.assign(p, p + sqlite3_column_bytes(q, 1));
  }
  sqlite3_finalize(q);
  p2b::shuffler::sealed_rows::Report original;
  EXPECT_TRUE(
      p2b::shuffler::sealed_rows::open_record(*shuffler_test::spool_key(), id, sealed, &original));
  std::vector<uint8_t> damaged = sealed;
  damaged[damaged.size() / 2] ^= 0xFF;
  EXPECT_EQ(sqlite3_prepare_v2(db, "UPDATE records_sealed SET sealed = ?1 WHERE id = ?2", -1, &q,
                               nullptr),
            SQLITE_OK);
  sqlite3_bind_blob(q, 1, damaged.data(), static_cast<int>(damaged.size()), SQLITE_TRANSIENT);
  sqlite3_bind_int64(q, 2, id);
  EXPECT_EQ(sqlite3_step(q), SQLITE_DONE);
  sqlite3_finalize(q);
  sqlite3_close(db);
  return {original.inner.begin(), original.inner.end()};
}

bool sent(const std::vector<std::vector<uint8_t>>& bodies, const std::vector<uint8_t>& inner) {
  for (const auto& body : bodies) {
    for (const auto& r : shuffler_test::verified(body).batch.records) {
      if (std::equal(r.inner.begin(), r.inner.end(), inner.begin(), inner.end())) return true;
    }
  }
  return false;
}

p2b::shuffler::BatchingPolicy policy() {
  p2b::shuffler::BatchingPolicy p;
  p.partition = kPartition;
  p.interval = std::chrono::hours(1);
  p.threshold = {1, 0};
  return p;
}

TEST(ShufflerRowIntegrity, ADamagedUnbatchedRowIsSetAsideAndEveryOtherRecordIsSent) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("spool.db");
  {
    SqliteSpool spool(path, shuffler_test::spool_key(), kPartition);
    shuffler_test::fill(&spool, 1, 10);
  }
  const std::vector<uint8_t> original = flip_one_inner(path);

  SqliteSpool spool(path, shuffler_test::spool_key(), kPartition);
  shuffler_test::FakeAnalyzer analyzer;
  p2b::shuffler::Metrics metrics;
  Batcher batcher(spool, analyzer, metrics, policy(), shuffler_test::batch_keys());
  const auto closed = batcher.close_batch();
  EXPECT_EQ(closed.taken, 10U);
  EXPECT_EQ(closed.damaged, 1U);
  EXPECT_EQ(closed.kept, 9U);
  EXPECT_TRUE(batcher.deliver_pending());

  ASSERT_EQ(analyzer.received.size(), 1U);
  EXPECT_EQ(shuffler_test::verified(analyzer.received[0]).batch.records.size(), 9U);
  EXPECT_FALSE(sent(analyzer.received, original));
  EXPECT_EQ(metrics.damaged_in_spool.load(), 1U);
  EXPECT_EQ(metrics.quarantined.load(), 1U);
  EXPECT_NE(metrics.render(spool.depth())
                .find("p2b_shuffler_set_aside_total{reason=\"damaged_in_spool\"} 1"),
            std::string::npos);
  EXPECT_EQ(spool.depth(), 0U);
  const auto entries = spool.quarantined();
  ASSERT_EQ(entries.size(), 1U);
  EXPECT_EQ(entries[0].reason, "damaged_in_spool");
  EXPECT_EQ(entries[0].origin.rfind("unbatched row ", 0), 0U);
}

// The crowd id is sealed with the inner ciphertext, and each sealed value to
// its row: a value copied over another row's (to count a report twice, or
// towards another crowd) fails to open there.
TEST(ShufflerRowIntegrity, ASealedValueMovedToAnotherRowIsCaught) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("spool.db");
  {
    SqliteSpool spool(path, shuffler_test::spool_key(), kPartition);
    shuffler_test::fill(&spool, 1, 4);
  }
  tamper(path,
         "UPDATE records_sealed SET sealed = (SELECT sealed FROM records_sealed ORDER BY id LIMIT "
         "1) WHERE id = (SELECT id FROM records_sealed ORDER BY id DESC LIMIT 1)");
  SqliteSpool spool(path, shuffler_test::spool_key(), kPartition);
  const auto closed =
      spool.close_batch(p2b::server::BatchId{}, shuffler_test::lease_of(spool), 100, keep_all);
  EXPECT_EQ(closed.damaged, 1U);
  EXPECT_EQ(closed.kept, 3U);
  const auto batch = spool.oldest_unacknowledged(kPartition);
  ASSERT_TRUE(batch.has_value());
  for (const auto& r : batch->records) EXPECT_EQ(r.crowd_id, 1U);
}

TEST(ShufflerRowIntegrity, ADamagedRowOfAClosedBatchIsSetAsideBeforeItIsSent) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("spool.db");
  {
    SqliteSpool spool(path, shuffler_test::spool_key(), kPartition);
    shuffler_test::fill(&spool, 1, 6);
    EXPECT_EQ(
        spool.close_batch(p2b::server::BatchId{}, shuffler_test::lease_of(spool), 100, keep_all)
            .kept,
        6U);
  }
  // `batched_sealed` has no rowid column of its own; its key stands in.
  tamper(path, "CREATE TABLE victim AS SELECT batch_id, position FROM batched_sealed LIMIT 1");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "UPDATE batched_sealed SET sealed = zeroblob(length(sealed)) WHERE "
                         "(batch_id, position) IN (SELECT batch_id, position FROM victim); "
                         "DROP TABLE victim;",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);

  SqliteSpool spool(path, shuffler_test::spool_key(), kPartition);
  shuffler_test::FakeAnalyzer analyzer;
  p2b::shuffler::Metrics metrics;
  Batcher batcher(spool, analyzer, metrics, policy(), shuffler_test::batch_keys());
  EXPECT_TRUE(batcher.deliver_pending());
  ASSERT_EQ(analyzer.received.size(), 1U);
  const auto records = shuffler_test::verified(analyzer.received[0]).batch.records;
  EXPECT_EQ(records.size(), 5U);
  for (const auto& r : records) {
    EXPECT_FALSE(std::all_of(r.inner.begin(), r.inner.end(), [](uint8_t b) { return b == 0; }));
  }
  EXPECT_EQ(metrics.damaged_in_spool.load(), 1U);
  ASSERT_EQ(spool.quarantine_size(), 1U);
  EXPECT_EQ(spool.quarantined()[0].origin.rfind("batch ", 0), 0U);
}

TEST(ShufflerRowIntegrity, ASpoolOfSchema4GetsChecksumsFromItsRowsAndSendsThem) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("spool.db");
  // What a schema-4 spool looked like: no checksums, no quarantine.
  shuffler_test::make_plain_spool(
      path, 4,
      {shuffler_test::record(1, 1), shuffler_test::record(1, 2), shuffler_test::record(1, 3)});
  SqliteSpool spool(path, shuffler_test::spool_key(), kPartition);
  const auto closed =
      spool.close_batch(p2b::server::BatchId{}, shuffler_test::lease_of(spool), 100, keep_all);
  EXPECT_EQ(closed.kept, 3U);
  EXPECT_EQ(closed.damaged, 0U);
  EXPECT_EQ(spool.quarantine_size(), 0U);
}

// Runs the subcommand in-process; its standard output in `out`.
int quarantine(std::vector<std::string> args, std::string* out) {
  args.insert(args.begin(), "quarantine");
  std::vector<const char*> argv;
  argv.reserve(args.size());
  for (const std::string& a : args) argv.push_back(a.c_str());
  testing::internal::CaptureStdout();
  const int rc = p2b::shuffler::quarantine_main(static_cast<int>(argv.size()), argv.data());
  *out = testing::internal::GetCapturedStdout();
  return rc;
}

// A spool with one damaged record set aside, closed again.
std::string spool_with_one_set_aside(const shuffler_test::TempDir& dir) {
  std::string path = dir.file("spool.db");
  {
    SqliteSpool spool(path, shuffler_test::spool_key(), kPartition);
    shuffler_test::fill(&spool, 1, 3);
  }
  flip_one_inner(path);
  SqliteSpool spool(path, shuffler_test::spool_key(), kPartition);
  EXPECT_EQ(spool.close_batch(p2b::server::BatchId{}, shuffler_test::lease_of(spool), 100, keep_all)
                .damaged,
            1U);
  return path;
}

TEST(ShufflerQuarantineCommand, ListShowsCountsByReasonAndWhereTheRowWasNeverContents) {
  shuffler_test::TempDir dir;
  const std::string path = spool_with_one_set_aside(dir);
  std::string out;
  ASSERT_EQ(quarantine({"list", "--store", path}, &out), p2b::common::kExitClean);
  EXPECT_NE(out.find("1 records in quarantine"), std::string::npos) << out;
  EXPECT_NE(out.find("reason damaged_in_spool: 1"), std::string::npos) << out;
  EXPECT_NE(out.find("unbatched row "), std::string::npos) << out;
  ASSERT_EQ(quarantine({"list", "--store", path, "--reason", "other"}, &out),
            p2b::common::kExitClean);
  EXPECT_NE(out.find("0 records in quarantine"), std::string::npos) << out;
}

TEST(ShufflerQuarantineCommand, PurgeDeletesOnlyWhatMatchesAndCountsIt) {
  shuffler_test::TempDir dir;
  const std::string path = spool_with_one_set_aside(dir);
  std::string out;
  ASSERT_EQ(quarantine({"purge", "--store", path, "--older-than", "1"}, &out),
            p2b::common::kExitClean);
  EXPECT_NE(out.find("purged 0 records"), std::string::npos) << out;
  ASSERT_EQ(quarantine({"purge", "--store", path, "--reason", "other"}, &out),
            p2b::common::kExitClean);
  EXPECT_NE(out.find("purged 0 records"), std::string::npos) << out;
  ASSERT_EQ(
      quarantine({"purge", "--store", path, "--reason", "damaged_in_spool", "--older-than", "0"},
                 &out),
      p2b::common::kExitClean);
  EXPECT_NE(out.find("purged 1 records"), std::string::npos) << out;
  SqliteSpool spool(path, shuffler_test::spool_key(), kPartition);
  EXPECT_EQ(spool.quarantine_size(), 0U);
}

TEST(ShufflerQuarantineCommand, RetryIsRefusedAndChangesNothing) {
  shuffler_test::TempDir dir;
  const std::string path = spool_with_one_set_aside(dir);
  std::string out;
  EXPECT_EQ(quarantine({"retry", "--store", path}, &out), p2b::common::kExitUsage);
  SqliteSpool spool(path, shuffler_test::spool_key(), kPartition);
  EXPECT_EQ(spool.quarantine_size(), 1U);
}

TEST(ShufflerQuarantineCommand, BadCommandLinesAreUsageErrorsAndHelpIsNot) {
  std::string out;
  EXPECT_EQ(quarantine({}, &out), p2b::common::kExitUsage);
  EXPECT_EQ(quarantine({"list"}, &out), p2b::common::kExitUsage);
  EXPECT_EQ(quarantine({"drop", "--store", "x.db"}, &out), p2b::common::kExitUsage);
  EXPECT_EQ(quarantine({"purge", "--store", "x.db", "--older-than", "soon"}, &out),
            p2b::common::kExitUsage);
  EXPECT_EQ(quarantine({"--help"}, &out), p2b::common::kExitClean);
  EXPECT_NE(out.find("Usage: p2b-shuffler quarantine"), std::string::npos);
}

TEST(ShufflerQuarantineCommand, AMissingSpoolIsAFailureNotCreated) {
  shuffler_test::TempDir dir;
  std::string out;
  EXPECT_EQ(quarantine({"list", "--store", dir.file("none.db")}, &out), p2b::common::kExitFailure);
  EXPECT_FALSE(std::filesystem::exists(dir.file("none.db")));
}

}  // namespace
