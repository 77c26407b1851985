#include "common/connection_gate.hpp"

#include <system_error>
#include <thread>
#include <utility>

namespace p2b::common {

namespace {
thread_local bool t_shedding = false;
}  // namespace

ConnectionGate::ConnectionGate(std::size_t max_connections) : max_(max_connections) {}

bool ConnectionGate::shedding() {
  return t_shedding;
}

void ConnectionGate::run_shed(const std::function<void()>& fn) {
  t_shedding = true;
  fn();
  t_shedding = false;
}

void ConnectionGate::enqueue(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    // Over the cap, the connection is shed below, unlocked: that only
    // writes a few bytes and closes.
    if (state_->running < max_) {
      ++state_->running;
      try {
        // The thread holds the state, not the gate: it may outlive the gate
        // by the few instructions after its task.
        std::thread([state = state_, task = fn] {
          task();
          std::lock_guard<std::mutex> done(state->mutex);
          --state->running;
          state->idle.notify_all();
        }).detach();
        return;
      } catch (const std::system_error&) {
        --state_->running;  // no thread to be had: shed it like one over the cap
      }
    }
  }
  run_shed(fn);
}

void ConnectionGate::shutdown() {
  std::unique_lock<std::mutex> lock(state_->mutex);
  state_->idle.wait(lock, [this] { return state_->running == 0; });
}

}  // namespace p2b::common
