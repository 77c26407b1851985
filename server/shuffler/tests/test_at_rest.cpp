// Nothing at rest: once a batch is forwarded or its crowd thresholded away,
// and the spool's checkpointer has run (settle: it runs off the request
// path, right after the close or acknowledgement), no byte of its inner
// ciphertexts is left in the spool's database, WAL or shared-memory file.
// Each check has a control that finds the bytes while they are legitimately
// spooled, so the scan itself is shown to work.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include <vector>

#include "file_scan.hpp"
#include "shuffler/sqlite_spool.hpp"
#include "shuffler_test_support.hpp"

namespace {

using p2b::server::BatchId;
using p2b::shuffler::SpoolRecord;
using p2b::shuffler::SqliteSpool;
using shuffler_test::record;

std::vector<uint8_t> bytes_of(const SpoolRecord& r) {
  return {r.inner.begin(), r.inner.end()};
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
  SqliteSpool spool(path);
  const SpoolRecord kept = record(1, 1);
  const SpoolRecord dropped = record(2, 1);
  ASSERT_EQ(spool.insert({kept, dropped}).accepted, 2U);
  ASSERT_TRUE(p2b_test::store_contains(path, bytes_of(dropped))) << "control: spooled";

  const auto closed =
      spool.close_batch(id_of(1), shuffler_test::lease_of(spool), 100, keep_crowd_one);
  ASSERT_EQ(closed.thresholded, 1U);
  ASSERT_TRUE(spool.settle(kCheckpointBound));
  EXPECT_FALSE(p2b_test::store_contains(path, bytes_of(dropped)));
  EXPECT_TRUE(p2b_test::store_contains(path, bytes_of(kept))) << "control: awaiting delivery";
}

TEST(ShufflerAtRest, ForwardedRecordsLeaveNoTraceOnceAcknowledged) {
  shuffler_test::TempDir dir;
  const std::string path = dir.file("spool.db");
  SqliteSpool spool(path);
  std::vector<SpoolRecord> records;
  for (uint32_t i = 0; i < 20; ++i) records.push_back(record(1, i));
  ASSERT_EQ(spool.insert(records).accepted, records.size());
  ASSERT_EQ(spool.close_batch(id_of(7), shuffler_test::lease_of(spool), 100, keep_crowd_one).kept,
            records.size());
  // The scan reads the files one after the other: it must not race a
  // checkpoint that moves pages from the WAL into the database.
  ASSERT_TRUE(spool.settle(kCheckpointBound));
  for (const SpoolRecord& r : records) {
    ASSERT_TRUE(p2b_test::store_contains(path, bytes_of(r))) << "control: awaiting delivery";
  }
  ASSERT_EQ(spool.acknowledge(id_of(7)), records.size());
  ASSERT_TRUE(spool.settle(kCheckpointBound));
  for (const SpoolRecord& r : records) EXPECT_FALSE(p2b_test::store_contains(path, bytes_of(r)));
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
    SqliteSpool spool(path);
    _exit(spool.insert({r}).accepted == 1 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_TRUE(p2b_test::file_contains(path + "-wal", bytes_of(r))) << "control: the crash's WAL";

  SqliteSpool reopened(path);
  EXPECT_EQ(std::filesystem::file_size(path + "-wal"), 0U);
  EXPECT_EQ(reopened.unbatched(), 1U) << "the committed record itself is kept";
}

}  // namespace
