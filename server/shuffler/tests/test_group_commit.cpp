// Group commit of the spool's inserts: concurrent requests are all stored
// with their own counts, requests queued behind a commit share the next
// transaction (replays across them counted once), and a failing shared
// transaction fails every request in it and stores none of them.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "common/sqlite_db.hpp"
#include "shuffler/group_commit.hpp"
#include "shuffler/sqlite_spool.hpp"
#include "shuffler_test_support.hpp"

namespace {

using p2b::shuffler::InsertCounts;
using p2b::shuffler::SpoolRecord;
using shuffler_test::eventually;
using shuffler_test::record;

// A real spool whose next insert_all can be held at the gate, so that the
// test knows which requests queue up behind it; records each group's size.
class GatedSpool final : public shuffler_test::ForwardingSpool {
 public:
  explicit GatedSpool(p2b::shuffler::Spool& inner) : ForwardingSpool(inner) {}

  void hold_next() {
    std::lock_guard<std::mutex> lock(mu_);
    hold_ = true;
  }
  bool holding() {
    std::lock_guard<std::mutex> lock(mu_);
    return held_;
  }
  void release() {
    std::lock_guard<std::mutex> lock(mu_);
    held_ = false;
    cv_.notify_all();
  }
  std::vector<std::size_t> groups() {
    std::lock_guard<std::mutex> lock(mu_);
    return groups_;
  }

  std::vector<InsertCounts> insert_all(
      const std::vector<const std::vector<SpoolRecord>*>& requests) override {
    {
      std::unique_lock<std::mutex> lock(mu_);
      groups_.push_back(requests.size());
      if (hold_) {
        hold_ = false;
        held_ = true;
        // Bounded: a test that never releases fails instead of hanging.
        cv_.wait_for(lock, std::chrono::seconds(20), [this] { return !held_; });
      }
    }
    return ForwardingSpool::insert_all(requests);
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool hold_ = false;
  bool held_ = false;
  std::vector<std::size_t> groups_;
};

// One request on its own thread; keeps its counts or whether it failed.
struct Request {
  explicit Request(std::vector<SpoolRecord> r) : records(std::move(r)) {}
  std::vector<SpoolRecord> records;
  InsertCounts counts;
  bool failed = false;
  std::thread thread;

  void send(p2b::shuffler::GroupCommit& commit) {
    thread = std::thread([this, &commit] {
      try {
        counts = commit.insert(records);
      } catch (const p2b::shuffler::SpoolError&) {
        failed = true;
      }
    });
  }
};

class ShufflerGroupCommit : public ::testing::Test {
 protected:
  ShufflerGroupCommit()
      : spool(dir.file("spool.db"), shuffler_test::spool_key()),
        gated(spool),
        commit(gated, 8192, &commits) {}

  // A first request held inside its transaction, then `queued` sent one at
  // a time (so their queue order is known), then the gate opened.
  void run_group(Request& first, std::vector<Request*> queued) {
    gated.hold_next();
    first.send(commit);
    ASSERT_TRUE(eventually([&] { return gated.holding(); }));
    for (std::size_t i = 0; i < queued.size(); ++i) {
      queued[i]->send(commit);
      ASSERT_TRUE(eventually([&] { return commit.queued() == i + 1; }));
    }
    gated.release();
    first.thread.join();
    for (Request* r : queued) r->thread.join();
  }

  shuffler_test::TempDir dir;
  p2b::shuffler::SqliteSpool spool;
  GatedSpool gated;
  std::atomic<uint64_t> commits{0};
  p2b::shuffler::GroupCommit commit;
};

TEST_F(ShufflerGroupCommit, ConcurrentRequestsAreAllStoredWithTheirOwnCounts) {
  constexpr int kThreads = 8;
  constexpr int kRequests = 25;
  constexpr int kPerRequest = 4;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  std::atomic<int> wrong{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int q = 0; q < kRequests; ++q) {
        std::vector<SpoolRecord> records;
        records.reserve(kPerRequest + 1);
        for (int i = 0; i < kPerRequest; ++i) {
          records.push_back(
              record(1, static_cast<uint32_t>((t * kRequests + q) * kPerRequest + i)));
        }
        records.push_back(records.front());  // a replay inside the request
        const InsertCounts c = commit.insert(records);
        if (c.accepted != kPerRequest || c.duplicates != 1) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(spool.depth(), static_cast<std::size_t>(kThreads * kRequests * kPerRequest));
  EXPECT_GE(commits.load(), 1U);
  EXPECT_LE(commits.load(), static_cast<uint64_t>(kThreads * kRequests));
  EXPECT_EQ(commit.queued(), 0U);
}

TEST_F(ShufflerGroupCommit, RequestsQueuedBehindACommitShareOneAndReplaysCountOnce) {
  const SpoolRecord r1 = record(2, 1), r2 = record(2, 2), r3 = record(2, 3);
  Request first{{record(2, 0)}};
  Request a{{r1, r2}};
  Request b{{r2, r3}};  // r2 was in a, earlier in the same transaction
  Request c{{r1}};      // so was r1
  run_group(first, {&a, &b, &c});

  EXPECT_EQ(gated.groups(), (std::vector<std::size_t>{1, 3}));
  EXPECT_EQ(commits.load(), 2U);
  for (const Request* r : {&first, &a, &b, &c}) EXPECT_FALSE(r->failed);
  EXPECT_EQ(first.counts.accepted, 1U);
  EXPECT_EQ(a.counts.accepted, 2U);
  EXPECT_EQ(a.counts.duplicates, 0U);
  EXPECT_EQ(b.counts.accepted, 1U);
  EXPECT_EQ(b.counts.duplicates, 1U);
  EXPECT_EQ(c.counts.accepted, 0U);
  EXPECT_EQ(c.counts.duplicates, 1U);
  EXPECT_EQ(spool.depth(), 4U);
}

TEST_F(ShufflerGroupCommit, AFailingGroupCommitFailsEveryRequestInItAndStoresNothing) {
  // A real failure inside the shared transaction, after the first requests'
  // rows went in: a trigger (added by a second connection) aborts the
  // fourth record stored, the one of `bad` (the crowd id is sealed, so the
  // trigger counts rows instead of reading it).
  {
    p2b::common::Database other(dir.file("spool.db"));
    other.exec(
        "CREATE TRIGGER refuse_666 BEFORE INSERT ON records_sealed "
        "WHEN (SELECT COUNT(*) FROM records_sealed) >= 3 "
        "BEGIN SELECT RAISE(ABORT, 'injected failure'); END");
  }
  Request first{{record(3, 0)}};
  Request a{{record(3, 1), record(3, 2)}};
  Request bad{{record(666, 3)}};
  Request c{{record(3, 4)}};
  run_group(first, {&a, &bad, &c});

  EXPECT_EQ(gated.groups(), (std::vector<std::size_t>{1, 3}));
  EXPECT_FALSE(first.failed);
  EXPECT_EQ(first.counts.accepted, 1U);
  for (const Request* r : {&a, &bad, &c}) EXPECT_TRUE(r->failed);
  EXPECT_EQ(commits.load(), 1U);
  EXPECT_EQ(spool.depth(), 1U);

  // Nothing of the failed group was remembered either: sent again without
  // the bad request, its records are new, not replays.
  {
    p2b::common::Database other(dir.file("spool.db"));
    other.exec("DROP TRIGGER refuse_666");
  }
  Request again_a{a.records};
  Request again_c{c.records};
  again_a.send(commit);
  again_a.thread.join();
  again_c.send(commit);
  again_c.thread.join();
  EXPECT_EQ(again_a.counts.accepted, 2U);
  EXPECT_EQ(again_c.counts.accepted, 1U);
  EXPECT_EQ(spool.depth(), 4U);
}

}  // namespace
