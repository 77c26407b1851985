// A throwaway PostgreSQL cluster for tests, benchmarks and p2b-demo: initdb
// and pg_ctl in a fresh directory (as p2b-pgtest when running as root, see
// run_as.hpp), listening on 127.0.0.1 only, on a free port, with its unix
// socket in that directory and trust authentication (loopback only). It
// can be killed like a crash, restarted on the same port and data, and
// followed by a streaming standby (pg_basebackup -R) that can be promoted.
// Every wait is bounded; a failure throws std::runtime_error with the end
// of the server's log, and the log is printed when the cluster goes away
// if the hook print_log_on_exit_if says so (the tests: a test failed). A guard
// process removes the server and its directory if the owning process dies
// without its destructors.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

namespace p2b::proc {

// PgCluster::Options (outside the class so that it can be a default argument).
struct PgClusterOptions {
  bool fsync = true;  // the server's commits durable, like production
  int max_connections = 100;
  // Further postgresql.conf lines, e.g. "shared_buffers = '64MB'".
  std::vector<std::string> settings;
  // Where the cluster's directory is made (under root, p2b-pgtest must be
  // able to reach it); empty: the system's temporary directory.
  std::string parent_dir;
};

class PgCluster {
 public:
  using Options = PgClusterOptions;

  // initdb, pg_ctl start, CREATE DATABASE p2b (owner p2b, the superuser).
  static std::unique_ptr<PgCluster> start_primary(Options options = {});
  // pg_basebackup -R from this cluster into a new one, started: a hot
  // standby streaming from this one.
  std::unique_ptr<PgCluster> start_standby();

  // Process-wide: a cluster going away prints the end of its server log
  // to stderr when `predicate` returns true. Unset: never.
  static void print_log_on_exit_if(bool (*predicate)());

  ~PgCluster();
  PgCluster(const PgCluster&) = delete;
  PgCluster& operator=(const PgCluster&) = delete;

  // postgresql://p2b@127.0.0.1:PORT/p2b
  std::string url() const;
  // The same on another database, e.g. "postgres".
  std::string url(const std::string& database) const;
  int port() const { return port_; }
  // The postmaster's pid from postmaster.pid, -1 when not running.
  pid_t postmaster_pid() const;
  // pg_ctl promote, then waits (bounded) until it accepts writes.
  void promote();
  // SIGKILL to the postmaster and every child it has, as a crash; waits
  // until they are gone.
  void kill9();
  // A clean (fast) stop, and a start again on the same port and data.
  void stop();
  void start();
  bool running() const { return running_; }
  // The server's log so far.
  std::string log() const;
  const std::string& dir() const { return dir_; }

 private:
  explicit PgCluster(Options options);
  void make_dir();
  void write_settings();
  void pg_ctl_start();
  void start_guard();
  void end_guard();
  int run(const std::vector<std::string>& argv, int timeout_s) const;
  [[noreturn]] void fail(const std::string& what) const;
  std::string data_dir() const { return dir_ + "/data"; }

  Options options_;
  std::string dir_;
  int port_ = 0;
  bool running_ = false;
  pid_t guard_pid_ = -1;
  int guard_fd_ = -1;  // its write end; closing it (or dying) fires the guard
};

}  // namespace p2b::proc
