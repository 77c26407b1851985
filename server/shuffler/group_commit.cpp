#include "shuffler/group_commit.hpp"

#include <exception>

namespace p2b::shuffler {

struct GroupCommit::Waiter {
  const std::vector<SpoolRecord>* records = nullptr;
  InsertCounts counts;
  std::exception_ptr error;
  bool done = false;
};

GroupCommit::GroupCommit(Spool& spool, std::size_t max_records, std::atomic<uint64_t>* commits)
    : spool_(spool), max_records_(max_records), commits_(commits) {}

std::size_t GroupCommit::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

InsertCounts GroupCommit::insert(const std::vector<SpoolRecord>& records) {
  Waiter me;
  me.records = &records;
  std::unique_lock<std::mutex> lock(mu_);
  queue_.push_back(&me);
  while (!me.done) {
    if (leading_) {
      done_.wait(lock);
    } else {
      lead(lock);
    }
  }
  if (me.error) std::rethrow_exception(me.error);
  return me.counts;
}

// Called with the lock held and no commit in progress; commits the oldest
// queued requests (which need not include the caller's own).
void GroupCommit::lead(std::unique_lock<std::mutex>& lock) {
  leading_ = true;
  std::vector<Waiter*> group;
  std::size_t records = 0;
  while (!queue_.empty() &&
         (group.empty() || records + queue_.front()->records->size() <= max_records_)) {
    records += queue_.front()->records->size();
    group.push_back(queue_.front());
    queue_.pop_front();
  }
  lock.unlock();

  std::vector<InsertCounts> counts;
  std::exception_ptr error;
  try {
    std::vector<const std::vector<SpoolRecord>*> requests;
    requests.reserve(group.size());
    for (const Waiter* w : group) requests.push_back(w->records);
    counts = spool_.insert_all(requests);
    if (counts.size() != group.size()) throw SpoolError("spool: counts for the wrong group");
  } catch (...) {
    error = std::current_exception();
  }

  lock.lock();
  for (std::size_t i = 0; i < group.size(); ++i) {
    if (error) {
      group[i]->error = error;
    } else {
      group[i]->counts = counts[i];
    }
    group[i]->done = true;
  }
  if (!error && commits_ != nullptr) commits_->fetch_add(1);
  leading_ = false;
  done_.notify_all();
}

}  // namespace p2b::shuffler
