#include "parallel/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace p2b::tools {
namespace {

// Set while a thread runs tasks, so a nested call runs inline instead of
// waiting for the pool it is part of.
thread_local bool t_in_task = false;

// Workers that live for the whole process. The trainer's seeding calls
// parallel_for once per centre (1024 times); starting threads for each call
// cost more than the work itself whenever the machine is busy.
class Pool {
 public:
  void run(std::size_t tasks, unsigned threads, const std::function<void(std::size_t)>& body) {
    const std::lock_guard<std::mutex> one_job(job_mutex_);  // one parallel_for at a time
    grow(threads - 1);
    std::unique_lock<std::mutex> lock(mutex_);
    body_ = &body;
    tasks_ = tasks;
    next_ = 0;
    failure_ = nullptr;
    helpers_ = threads - 1;
    busy_ = helpers_;
    ++generation_;
    lock.unlock();
    wake_.notify_all();
    work();
    lock.lock();
    done_.wait(lock, [&] { return busy_ == 0; });
    body_ = nullptr;
    if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
  }

  ~Pool() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

 private:
  void grow(unsigned n) {
    while (workers_.size() < n) {
      const std::size_t index = workers_.size();
      workers_.emplace_back([this, index] { serve(index); });
    }
  }

  void work() {
    t_in_task = true;
    for (std::size_t i = next_++; i < tasks_; i = next_++) {
      try {
        (*body_)(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(failure_mutex_);
        if (!failure_) failure_ = std::current_exception();
        next_ = tasks_;  // hand out no more tasks
      }
    }
    t_in_task = false;
  }

  void serve(std::size_t index) {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (index >= helpers_) continue;  // this job wants fewer threads
      lock.unlock();
      work();
      lock.lock();
      if (--busy_ == 0) done_.notify_one();
    }
  }

  std::mutex job_mutex_;
  std::mutex mutex_;
  std::mutex failure_mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  const std::function<void(std::size_t)>* body_ = nullptr;
  std::size_t tasks_ = 0;
  std::atomic<std::size_t> next_{0};
  std::exception_ptr failure_;
  std::size_t helpers_ = 0;
  std::size_t busy_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

}  // namespace

void parallel_for(std::size_t tasks, unsigned threads,
                  const std::function<void(std::size_t)>& body) {
  const std::size_t workers = std::min<std::size_t>(std::max(1U, threads), tasks);
  if (workers <= 1 || t_in_task) {
    for (std::size_t i = 0; i < tasks; ++i) body(i);
    return;
  }
  static Pool pool;
  pool.run(tasks, static_cast<unsigned>(workers), body);
}

}  // namespace p2b::tools
