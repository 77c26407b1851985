// Group commit for the spool's inserts. Every 202 waits for an fsync, and
// each transaction rewrites every B-tree page it touches in the WAL, so
// small requests committed one by one cost a sync and several pages each.
// Concurrent requests are instead queued: the first caller to find no
// commit in progress becomes the leader, takes every request queued (up to
// a cap) and commits them in one Spool::insert_all transaction while the
// next ones queue up behind it. A single request pays no added wait.
//
// Each caller returns only after the transaction holding its records
// committed durably, with its own counts; if that transaction fails, every
// caller in it gets the error and none of their records is stored.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "shuffler/spool.hpp"

namespace p2b::shuffler {

class GroupCommit {
 public:
  // `commits`, if given, counts the transactions committed.
  explicit GroupCommit(Spool& spool, std::size_t max_records = kDefaultMaxRecords,
                       std::atomic<uint64_t>* commits = nullptr);
  GroupCommit(const GroupCommit&) = delete;
  GroupCommit& operator=(const GroupCommit&) = delete;

  // Spool::insert's contract, shared with concurrent callers; throws what
  // the spool threw (SpoolError) when the group's transaction failed.
  InsertCounts insert(const std::vector<SpoolRecord>& records);

  // Requests queued behind the commit in progress (tests wait on it).
  std::size_t queued() const;

  // A group stops growing at this many records (a larger single request
  // still goes alone): it bounds how long one transaction holds the spool.
  static constexpr std::size_t kDefaultMaxRecords = 8192;

 private:
  struct Waiter;
  void lead(std::unique_lock<std::mutex>& lock);

  Spool& spool_;
  const std::size_t max_records_;
  std::atomic<uint64_t>* commits_;
  mutable std::mutex mu_;
  std::condition_variable done_;
  std::deque<Waiter*> queue_;
  bool leading_ = false;
};

}  // namespace p2b::shuffler
