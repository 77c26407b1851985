#include "common/shutdown.hpp"

#include <httplib.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>

#include "common/exit_codes.hpp"

namespace p2b::common {

namespace {

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

// The next stop signal within `tick`, or 0.
int wait_signal(const sigset_t& set, long tick_ns) {
  const timespec tick{0, tick_ns};
  const int sig = sigtimedwait(&set, nullptr, &tick);
  return sig == SIGTERM || sig == SIGINT ? sig : 0;
}

const char* signal_name(int sig) {
  return sig == SIGINT ? "SIGINT" : "SIGTERM";
}

}  // namespace

void block_stop_signals() {
  const sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

StopOutcome serve_until_stopped(const Serving& serving, Logger& log) {
  std::atomic<bool> done{false};
  std::atomic<bool> signalled{false};
  std::atomic<bool> forced{false};
  std::thread waiter([&] {
    const sigset_t set = stop_signals();
    while (!done && !signalled) {
      if (const int sig = wait_signal(set, 100000000L)) {
        log.info("stopping", {{"signal", signal_name(sig)}});
        signalled = true;
      }
    }
    // A stop() that lands before listen() has started is lost, so repeat it
    // until the server is down.
    while (signalled && !done) {
      serving.stop();
      if (const int sig = wait_signal(set, 20000000L)) {
        log.error("stop_forced", {{"signal", signal_name(sig)}});
        forced = true;
        if (!serving.force_exit) _exit(kExitUnclean);
        serving.force_exit();
        return;
      }
    }
  });
  const bool listened = serving.listen();
  done = true;
  waiter.join();
  StopOutcome outcome = StopOutcome::failed;
  if (forced) {
    outcome = StopOutcome::forced;
  } else if (signalled && listened) {
    outcome = StopOutcome::clean;
  }
  return outcome;
}

StopOutcome serve_until_stopped(httplib::Server& server, Logger& log) {
  return serve_until_stopped(
      Serving{[&server] { return server.listen_after_bind(); }, [&server] { server.stop(); }, {}},
      log);
}

int finish_stop(StopOutcome outcome, Logger& log) {
  const bool clean = outcome == StopOutcome::clean;
  log.log(clean ? LogLevel::info : LogLevel::error, "stopped", {{"clean", clean}});
  return clean ? kExitClean : kExitUnclean;
}

}  // namespace p2b::common
