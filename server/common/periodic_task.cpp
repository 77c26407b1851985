#include "common/periodic_task.hpp"

#include <exception>
#include <utility>

namespace p2b::common {

PeriodicTask::PeriodicTask(Period period, std::function<void()> work, ErrorHandler on_error)
    : period_(period), work_(std::move(work)), on_error_(std::move(on_error)) {}

PeriodicTask::~PeriodicTask() {
  stop();
}

void PeriodicTask::start() {
  const std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { loop(); });
}

void PeriodicTask::stop() {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void PeriodicTask::run_now() {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    kicked_ = true;
  }
  wake_.notify_all();
}

uint64_t PeriodicTask::runs() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return runs_;
}

bool PeriodicTask::wait_for_runs(uint64_t n, std::chrono::milliseconds limit) const {
  std::unique_lock<std::mutex> lock(mu_);
  return ran_.wait_for(lock, limit, [&] { return runs_ >= n; });
}

void PeriodicTask::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    // Steady time: a wall-clock step neither fires nor stalls the task.
    wake_.wait_for(lock, period_, [this] { return stopping_ || kicked_; });
    if (stopping_) return;
    kicked_ = false;
    // The work runs unlocked so that stop() and run_now() never wait on it.
    lock.unlock();
    run_once();
    lock.lock();
    ++runs_;
    ran_.notify_all();
  }
}

void PeriodicTask::run_once() {
  try {
    work_();
  } catch (const std::exception& e) {
    if (on_error_) on_error_(e.what());
  } catch (...) {
    if (on_error_) on_error_("unknown exception");
  }
}

}  // namespace p2b::common
