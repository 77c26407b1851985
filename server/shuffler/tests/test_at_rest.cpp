// Nothing at rest: once a batch is forwarded or its crowd thresholded away,
// and the spool's checkpointer has run (settle: it runs off the request
// path, right after the close or acknowledgement), no byte of its sealed
// rows is left in the spool's database, WAL or shared-memory file. Each
// check has a control that finds the bytes while they are legitimately
// spooled, so the scan itself is shown to work. (The inner ciphertexts
// themselves are never on disk in clear: test_spool_encryption.cpp.)
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "common/sqlite_db.hpp"
#include "file_scan.hpp"
#include "shuffler/sealed_rows.hpp"
#include "shuffler/sqlite_spool.hpp"
#include "shuffler_test_support.hpp"

namespace {

using p2b::server::BatchId;
using p2b::shuffler::SpoolRecord;
using p2b::shuffler::SqliteSpool;
using shuffler_test::record;

// The sealed value a record is stored as, found by opening every row with
// the test's key; empty if it is not stored.
std::vector<uint8_t> bytes_of(const std::string& path, const SpoolRecord& r) {
  namespace rows = p2b::shuffler::sealed_rows;
  const auto key = shuffler_test::spool_key();
  p2b::common::Database raw(path);
  rows::Report report;
  p2b::common::Statement unbatched(raw, "SELECT id, sealed FROM records_sealed");
  while (unbatched.step()) {
    std::vector<uint8_t> sealed = unbatched.column_blob(1);
    if (rows::open_record(*key, unbatched.column_int(0), sealed, &report) &&
        report.inner == r.inner) {
      return sealed;
    }
  }
  p2b::common::Statement batched(raw, "SELECT batch_id, position, sealed FROM batched_sealed");
  while (batched.step()) {
    BatchId batch{};
    batched.column_blob_exact(0, batch.data(), batch.size());
    std::vector<uint8_t> sealed = batched.column_blob(2);
    if (rows::open_batched(*key, batch, batched.column_int(1), sealed, &report) &&
        report.inner == r.inner) {
      return sealed;
    }
  }
  return {};
}

// How long the checkpointer may take on a loaded machine: far more than the
// milliseconds it needs, so a miss is a bug, not a slow disk.
constexpr std::chrono::milliseconds kCheckpointBound{10000};

BatchId id_of(uint8_t b) {
  BatchId id{};
  id.fill(b);
  return id;
}

// Keeps the records of crowd 1, drops every other crowd.
std::vector<std::size_t> keep_crowd_one(const std::vector<uint32_t>& crowds) {
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < crowds.size(); ++i) {
    if (crowds[i] == 1) keep.push_back(i);
  }
  return keep;
}

TEST(ShufflerAtRest, ThresholdedRecordsLeaveNoTraceOnceTheBatchCloses) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("spool.db");
  SqliteSpool spool(path, shuffler_test::spool_key());
  const SpoolRecord kept = record(1, 1);
  const SpoolRecord dropped = record(2, 1);
  ASSERT_EQ(spool.insert({kept, dropped}).accepted, 2U);
  const std::vector<uint8_t> dropped_row = bytes_of(path, dropped);
  ASSERT_FALSE(dropped_row.empty());
  ASSERT_TRUE(p2b_test::store_contains(path, dropped_row)) << "control: spooled";

  const auto closed =
      spool.close_batch(id_of(1), shuffler_test::lease_of(spool), 100, keep_crowd_one);
  ASSERT_EQ(closed.thresholded, 1U);
  ASSERT_TRUE(spool.settle(kCheckpointBound));
  EXPECT_FALSE(p2b_test::store_contains(path, dropped_row));
  const std::vector<uint8_t> kept_row = bytes_of(path, kept);
  ASSERT_FALSE(kept_row.empty());
  EXPECT_TRUE(p2b_test::store_contains(path, kept_row)) << "control: awaiting delivery";
}

TEST(ShufflerAtRest, ForwardedRecordsLeaveNoTraceOnceAcknowledged) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("spool.db");
  SqliteSpool spool(path, shuffler_test::spool_key());
  std::vector<SpoolRecord> records;
  for (uint32_t i = 0; i < 20; ++i) records.push_back(record(1, i));
  ASSERT_EQ(spool.insert(records).accepted, records.size());
  ASSERT_EQ(spool.close_batch(id_of(7), shuffler_test::lease_of(spool), 100, keep_crowd_one).kept,
            records.size());
  // The scan reads the files one after the other: it must not race a
  // checkpoint that moves pages from the WAL into the database.
  ASSERT_TRUE(spool.settle(kCheckpointBound));
  std::vector<std::vector<uint8_t>> rows;
  for (const SpoolRecord& r : records) {
    rows.push_back(bytes_of(path, r));
    ASSERT_FALSE(rows.back().empty());
    ASSERT_TRUE(p2b_test::store_contains(path, rows.back())) << "control: awaiting delivery";
  }
  ASSERT_EQ(spool.acknowledge(id_of(7)), records.size());
  ASSERT_TRUE(spool.settle(kCheckpointBound));
  for (const auto& row : rows) EXPECT_FALSE(p2b_test::store_contains(path, row));
}

TEST(ShufflerAtRest, OpeningASpoolEmptiesTheWalACrashLeft) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("spool.db");
  const SpoolRecord r = record(1, 1);
  // A child that dies without closing its connection leaves its commits in
  // the WAL, which is where a crash between a delete and its checkpoint
  // would leave the deleted records' older pages.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    SqliteSpool spool(path, shuffler_test::spool_key());
    if (spool.insert({r}).accepted != 1) _exit(1);
    // The row as stored, read while the child still holds the spool (a
    // reader opened after it died would recover, and so empty, the WAL).
    const std::vector<uint8_t> row = bytes_of(path, r);
    std::FILE* out = std::fopen((path + ".row").c_str(), "wb");
    const bool written =
        out != nullptr && std::fwrite(row.data(), 1, row.size(), out) == row.size();
    if (out != nullptr) std::fclose(out);
    _exit(written && !row.empty() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  std::vector<uint8_t> row(std::filesystem::file_size(path + ".row"));
  std::FILE* in = std::fopen((path + ".row").c_str(), "rb");
  ASSERT_NE(in, nullptr);
  ASSERT_EQ(std::fread(row.data(), 1, row.size(), in), row.size());
  std::fclose(in);
  ASSERT_TRUE(p2b_test::file_contains(path + "-wal", row)) << "control: the crash's WAL";

  SqliteSpool reopened(path, shuffler_test::spool_key());
  EXPECT_EQ(std::filesystem::file_size(path + "-wal"), 0U);
  EXPECT_EQ(reopened.unbatched(), 1U) << "the committed record itself is kept";
}

}  // namespace
