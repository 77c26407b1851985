#include "common/shutdown.hpp"

#include <httplib.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <string>
#include <thread>

#include "common/bounded_server.hpp"
#include "common/exit_codes.hpp"

namespace p2b::common {

namespace {

sigset_t handled_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  return set;
}

void reopen_log(Logger& log) {
  std::string error;
  switch (log.reopen(&error)) {
    case Logger::Reopen::reopened:
      log.info("log_reopened", {{"signal", "SIGHUP"}, {"path", log.file_path()}});
      break;
    case Logger::Reopen::no_file:
      log.info("sighup_ignored", {{"signal", "SIGHUP"}, {"reason", "no log file"}});
      break;
    case Logger::Reopen::failed:
      log.error("log_reopen_failed", {{"path", log.file_path()}, {"error", error}});
      break;
  }
}

// The next stop signal within `tick`, or 0. A SIGHUP is handled here.
int wait_signal(const sigset_t& set, long tick_ns, Logger& log) {
  const timespec tick{0, tick_ns};
  const int sig = sigtimedwait(&set, nullptr, &tick);
  if (sig == SIGHUP) reopen_log(log);
  return sig == SIGTERM || sig == SIGINT ? sig : 0;
}

const char* signal_name(int sig) {
  return sig == SIGINT ? "SIGINT" : "SIGTERM";
}

using Clock = std::chrono::steady_clock;

}  // namespace

void block_stop_signals() {
  const sigset_t set = handled_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

StopOutcome serve_until_stopped(const Serving& serving, Logger& log) {
  std::atomic<bool> done{false};
  std::atomic<bool> signalled{false};
  std::atomic<bool> forced{false};
  std::thread waiter([&] {
    const sigset_t set = handled_signals();
    while (!done && !signalled) {
      if (const int sig = wait_signal(set, 100000000L, log)) {
        log.info("stopping", {{"signal", signal_name(sig)}});
        signalled = true;
      }
    }
    const Clock::time_point drained = Clock::now() + serving.drain;
    bool cut_logged = false;
    // A stop() that lands before listen() has started is lost, so repeat it
    // until the server is down.
    while (signalled && !done) {
      serving.stop();
      if (serving.cut && Clock::now() >= drained) {
        const std::size_t cut = serving.cut();
        if (cut > 0 && !cut_logged) {
          log.warn("drain_cut", {{"connections", cut}});
          cut_logged = true;
        }
      }
      if (const int sig = wait_signal(set, 20000000L, log)) {
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

StopOutcome serve_until_stopped(BoundedServer& server, Logger& log) {
  Serving serving{
      [&server] { return server.listen_after_bind(); }, [&server] { server.stop(); }, {}};
  serving.cut = [&server] { return server.cut_connections(); };
  serving.drain = std::chrono::milliseconds(
      static_cast<long long>(std::ceil(server.limits().drain_seconds * 1000)));
  return serve_until_stopped(serving, log);
}

int finish_stop(StopOutcome outcome, Logger& log) {
  const bool clean = outcome == StopOutcome::clean;
  log.log(clean ? LogLevel::info : LogLevel::error, "stopped", {{"clean", clean}});
  return clean ? kExitClean : kExitUnclean;
}

}  // namespace p2b::common
