// Runs PostgreSQL's programs for the tests and p2b-demo: initdb and
// postgres refuse to run as root, so a process running as root runs them as
// a system user it creates (p2b-pgtest), and as itself otherwise. Every run
// is bounded.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace p2b::proc {

struct RunAs {
  uid_t uid;
  gid_t gid;
  bool switch_user;  // false: run as the test's own user
};

// The user the tests run PostgreSQL as: p2b-pgtest (created with useradd
// if missing, safely when several test processes do it at once) when
// running as root, the current user otherwise. Throws std::runtime_error.
RunAs postgres_user();

// Runs argv[0] (a path) with argv[1..] as `as`, its stdout and stderr
// appended to `log_path`, no other descriptor inherited. Returns the exit
// status, 128 + N for signal N; kills it and returns -1 past `timeout`.
int run_bounded(const std::vector<std::string>& argv, const RunAs& as, const std::string& log_path,
                std::chrono::milliseconds timeout);

// In a child between fork and exec: closes every descriptor from 3 up, so
// a postmaster started through pg_ctl holds none of the test's sockets (a
// proxy's, a service's). Async-signal-safe.
void close_inherited_descriptors();

}  // namespace p2b::proc
