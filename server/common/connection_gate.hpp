// httplib's task queue for BoundedServer: every accepted connection gets a
// thread of its own, up to a cap, so an idle or slow connection never holds
// up another one (httplib's default pool of 8 threads queues the ninth
// connection behind the first eight). A connection over the cap is handed
// to its task on the accepting thread with shedding() true, for the task to
// answer at once and close.
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>

namespace p2b::common {

class ConnectionGate : public httplib::TaskQueue {
 public:
  explicit ConnectionGate(std::size_t max_connections);

  void enqueue(std::function<void()> fn) override;
  // Waits for every connection's thread to finish its task.
  void shutdown() override;

  // True on the accepting thread while it runs the task of a shed connection.
  static bool shedding();

 private:
  struct State {
    std::mutex mutex;
    std::condition_variable idle;
    std::size_t running = 0;
  };
  static void run_shed(const std::function<void()>& fn);

  std::size_t max_;
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

}  // namespace p2b::common
