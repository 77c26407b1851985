// One libpq connection, owned (PQfinish on destruction) and bounded in
// time: the connect by connect_timeout, and every statement by the
// server's statement_timeout (set at connect) and, on the client, by the
// same timeout plus kClientGrace, so a partitioned network that drops
// every byte still ends a call. A call that ran out of time on the client
// leaves the connection broken (healthy() is false; the next call throws):
// the caller opens a new one. The socket is non-blocking throughout. One
// thread at a time per connection.
#pragma once

#include <chrono>
#include <string>

#include <libpq-fe.h>

#include "common/pg/params.hpp"
#include "common/pg/result.hpp"

namespace p2b::pg {

class Connection {
 public:
  // How much longer than statement_timeout the client waits for an answer
  // before it gives the connection up as lost.
  static constexpr std::chrono::milliseconds kClientGrace{1000};

  // conninfo: a postgresql:// URL or a key=value string. A timeout of 0
  // means no bound (not advised). connect_timeout bounds the whole connect
  // (every host of a multi-host conninfo, TLS, authentication) except a
  // host name's resolution, which libpq does blocking: give addresses
  // (hostaddr=) where a slow resolver matters.
  explicit Connection(const std::string& conninfo,
                      std::chrono::milliseconds connect_timeout = std::chrono::seconds(5),
                      std::chrono::milliseconds statement_timeout = std::chrono::seconds(30));
  ~Connection();
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&& other) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs one or more statements on the simple protocol, their rows ignored.
  void exec(const std::string& sql);
  // Runs one statement on the extended protocol: binary parameters,
  // binary results.
  Result query(const std::string& sql, const Params& params = {});
  // The connection is open and no call gave it up.
  bool healthy() const;
  // For pipeline mode in callers; the socket is non-blocking.
  PGconn* native() { return conn_; }
  std::chrono::milliseconds statement_timeout() const { return statement_timeout_; }

 private:
  using Clock = std::chrono::steady_clock;
  void connect(const std::string& conninfo, std::chrono::milliseconds timeout);
  void check_usable(const std::string& context) const;
  Clock::time_point statement_deadline() const;
  // Sends what libpq buffered, then reads every result of the statement;
  // the first error result throws, the last result is returned.
  Result finish(const std::string& context);
  [[noreturn]] void give_up(const std::string& context);

  PGconn* conn_ = nullptr;
  bool broken_ = false;
  std::chrono::milliseconds statement_timeout_{0};
};

}  // namespace p2b::pg
