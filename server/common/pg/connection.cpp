#include "common/pg/connection.hpp"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "common/pg/conninfo.hpp"
#include "common/pg/error.hpp"

namespace p2b::pg {

namespace {

using Clock = std::chrono::steady_clock;

// Waits until the socket is readable (or writable too, when asked) or the
// deadline passes; false on the deadline.
bool wait_socket(int fd, bool for_write, Clock::time_point deadline) {
  if (fd < 0) return true;  // no socket: libpq reports why on the next call
  for (;;) {
    int timeout_ms = -1;
    if (deadline != Clock::time_point::max()) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return false;
      timeout_ms = static_cast<int>(std::min<long long>(left.count() + 1, 60'000));
    }
    pollfd pfd{fd, static_cast<short>(POLLIN | (for_write ? POLLOUT : 0)), 0};
    const int ready = ::poll(&pfd, 1, timeout_ms);
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) return true;  // let libpq report the socket's error
  }
}

// Notices ("relation exists, skipping") are not errors and not for stderr.
void ignore_notice(void* /*arg*/, const char* /*message*/) {}

}  // namespace

Connection::Connection(const std::string& conninfo, std::chrono::milliseconds connect_timeout,
                       std::chrono::milliseconds statement_timeout)
    : statement_timeout_(statement_timeout) {
  try {
    connect(conninfo, connect_timeout);
    exec("SET statement_timeout = " + std::to_string(statement_timeout.count()));
  } catch (...) {
    if (conn_ != nullptr) PQfinish(conn_);
    conn_ = nullptr;
    throw;
  }
}

void Connection::connect(const std::string& conninfo, std::chrono::milliseconds timeout) {
  const char* const keywords[] = {"dbname", "fallback_application_name", nullptr};
  const char* const values[] = {conninfo.c_str(), "p2b", nullptr};
  conn_ = PQconnectStartParams(keywords, values, 1);
  const std::string context = "connect to " + redact_conninfo(conninfo);
  if (conn_ == nullptr) throw Error(context + ": out of memory", "", true);
  PQsetNoticeProcessor(conn_, ignore_notice, nullptr);
  const Clock::time_point deadline =
      timeout.count() > 0 ? Clock::now() + timeout : Clock::time_point::max();
  PostgresPollingStatusType status = PGRES_POLLING_WRITING;
  while (PQstatus(conn_) != CONNECTION_BAD) {
    if (status == PGRES_POLLING_OK) break;
    if (status == PGRES_POLLING_FAILED) break;
    if (!wait_socket(PQsocket(conn_), status == PGRES_POLLING_WRITING, deadline)) {
      throw Error(context + ": no answer within " + std::to_string(timeout.count()) + " ms", "",
                  true);
    }
    status = PQconnectPoll(conn_);
  }
  if (PQstatus(conn_) != CONNECTION_OK) {
    const Error error = error_from(conn_, nullptr, context);
    throw Error(error.what(), error.sqlstate(), true);
  }
  if (PQsetnonblocking(conn_, 1) != 0) throw error_from(conn_, nullptr, context);
}

Connection::~Connection() {
  if (conn_ != nullptr) PQfinish(conn_);
}

Connection::Connection(Connection&& other) noexcept
    : conn_(std::exchange(other.conn_, nullptr)),
      broken_(other.broken_),
      statement_timeout_(other.statement_timeout_) {}

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    if (conn_ != nullptr) PQfinish(conn_);
    conn_ = std::exchange(other.conn_, nullptr);
    broken_ = other.broken_;
    statement_timeout_ = other.statement_timeout_;
  }
  return *this;
}

bool Connection::healthy() const {
  return conn_ != nullptr && !broken_ && PQstatus(conn_) == CONNECTION_OK;
}

void Connection::check_usable(const std::string& context) const {
  if (!healthy()) throw Error(context + ": the connection is lost", "", true);
}

Connection::Clock::time_point Connection::statement_deadline() const {
  if (statement_timeout_.count() <= 0) return Clock::time_point::max();
  return Clock::now() + statement_timeout_ + kClientGrace;
}

void Connection::give_up(const std::string& context) {
  broken_ = true;
  throw Error(context + ": no answer within " +
                  std::to_string((statement_timeout_ + kClientGrace).count()) +
                  " ms; the connection is given up",
              "", true);
}

void Connection::exec(const std::string& sql) {
  check_usable("exec");
  if (PQsendQuery(conn_, sql.c_str()) == 0) throw error_from(conn_, nullptr, "exec");
  finish("exec");
}

Result Connection::query(const std::string& sql, const Params& params) {
  check_usable("query");
  const std::vector<unsigned> types = params.types();
  const std::vector<const char*> values = params.values();
  const std::vector<int> lengths = params.lengths();
  const std::vector<int> formats = params.formats();
  if (PQsendQueryParams(conn_, sql.c_str(), params.size(), types.data(), values.data(),
                        lengths.data(), formats.data(), 1) == 0) {
    throw error_from(conn_, nullptr, "query");
  }
  return finish("query");
}

Result Connection::finish(const std::string& context) {
  const Clock::time_point deadline = statement_deadline();
  const int fd = PQsocket(conn_);
  for (;;) {
    const int flushed = PQflush(conn_);
    if (flushed == 0) break;
    if (flushed < 0) throw error_from(conn_, nullptr, context);
    if (!wait_socket(fd, true, deadline)) give_up(context);
    if (PQconsumeInput(conn_) == 0) throw error_from(conn_, nullptr, context);
  }
  Result last;
  Result failure;
  for (;;) {
    while (PQisBusy(conn_) != 0) {
      if (!wait_socket(fd, false, deadline)) give_up(context);
      if (PQconsumeInput(conn_) == 0) throw error_from(conn_, nullptr, context);
    }
    PGresult* raw = PQgetResult(conn_);
    if (raw == nullptr) break;
    Result result(raw);
    const ExecStatusType status = PQresultStatus(raw);
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
      last = std::move(result);
    } else if (status == PGRES_COPY_IN || status == PGRES_COPY_OUT || status == PGRES_COPY_BOTH) {
      broken_ = true;  // libpq would hand the COPY state back forever
      throw Error(context + ": COPY is not supported by this layer");
    } else if (failure.native() == nullptr) {
      failure = std::move(result);
    }
  }
  if (failure.native() != nullptr) throw error_from(conn_, failure.native(), context);
  if (PQstatus(conn_) == CONNECTION_BAD) throw error_from(conn_, nullptr, context);
  return last;
}

}  // namespace p2b::pg
