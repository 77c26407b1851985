// Runs a unit of work again when PostgreSQL says it may succeed the next
// time (Error::retryable: a serialization failure, a deadlock, a lost
// connection), a bounded number of times with a growing pause.
#pragma once

#include <algorithm>
#include <chrono>
#include <thread>

#include "common/pg/error.hpp"

namespace p2b::pg {

// Calls fn() up to `attempts` times (at least once); rethrows an Error that
// is not retryable, or the last one. fn must redo the whole transaction
// (and, after connection_lost(), open a new connection).
template <typename Fn>
auto with_retries(Fn&& fn, int attempts,
                  std::chrono::milliseconds first_pause = std::chrono::milliseconds(10))
    -> decltype(fn()) {
  std::chrono::milliseconds pause = first_pause;
  for (int attempt = 1;; ++attempt) {
    try {
      return fn();
    } catch (const Error& error) {
      if (!error.retryable() || attempt >= attempts) throw;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(1000));
  }
}

}  // namespace p2b::pg
