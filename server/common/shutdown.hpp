// The one shutdown loop of the services (docs/operations.md). SIGINT,
// SIGTERM and SIGHUP are blocked in every thread and taken by one waiting
// thread, so they are handled as ordinary code, never in a signal handler:
//   first signal   stop accepting, answer the requests in flight within the
//                  drain, then cut the connections still open, return;
//   second signal  during that drain: log and exit at once with
//                  kExitUnclean (the stores are crash safe, so this loses
//                  nothing that was acknowledged);
//   SIGHUP         reopen the log file (logrotate), or log that it was
//                  ignored; it never stops the service.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>

#include "common/json_log.hpp"

namespace httplib {
class Server;
}

namespace p2b::common {

class BoundedServer;

// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread, and so in every
// thread started after it, and ignores SIGPIPE. Call first thing in main().
void block_stop_signals();

enum class StopOutcome {
  clean,   // stopped by a signal and drained
  forced,  // a second signal cut the drain short (only if force_exit returns)
  failed,  // the server ended without a stop signal, or reported an error
};

// A server as the loop drives it; httplib::Server has an overload below.
struct Serving {
  std::function<bool()> listen;      // blocks until stopped; false on error
  std::function<void()> stop;        // asks listen() to return; may be early
  std::function<void()> force_exit;  // empty: _exit(kExitUnclean)
  // Once `drain` has passed since the stop signal, called (repeatedly,
  // until listen() returns) to shut down the connections still open;
  // returns how many it cut. Empty: nothing is cut.
  std::function<std::size_t()> cut = {};
  std::chrono::milliseconds drain{0};
};

// Logs "stopping" with the signal (and "stop_forced" on a second one, and
// "drain_cut" when connections outlived the drain).
StopOutcome serve_until_stopped(const Serving& serving, Logger& log);
StopOutcome serve_until_stopped(httplib::Server& server, Logger& log);
// With the drain of its HttpLimits and its cut_connections().
StopOutcome serve_until_stopped(BoundedServer& server, Logger& log);

// Once the service has closed its stores: logs "stopped" (clean true or
// false) and returns the exit code, kExitClean for clean, else kExitUnclean.
int finish_stop(StopOutcome outcome, Logger& log);

}  // namespace p2b::common
