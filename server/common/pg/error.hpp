// The one exception of the libpq layer: every failure, whether the server's
// (with its SQLSTATE) or the connection's, so callers decide with
// retryable() whether to run the whole transaction again.
#pragma once

#include <stdexcept>
#include <string>

#include <libpq-fe.h>

namespace p2b::pg {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what, std::string sqlstate = {}, bool connection_lost = false);

  // The server's SQLSTATE, "" when the failure was not a server error.
  const std::string& sqlstate() const { return sqlstate_; }
  // The connection is gone (CONNECTION_BAD, class 08, 57P01..57P03, or a
  // client-side timeout): only a new Connection can go on.
  bool connection_lost() const { return connection_lost_; }
  // Running the transaction again may succeed: a serialization failure
  // (40001), a deadlock (40P01) or a lost connection.
  bool retryable() const;

 private:
  std::string sqlstate_;
  bool connection_lost_;
};

// Whether a SQLSTATE says the session is over (class 08, admin or crash
// shutdown, the server not accepting connections yet).
bool sqlstate_means_connection_lost(const std::string& sqlstate);

// The Error for a failed statement: the result's SQLSTATE and message when
// there is a result, the connection's message otherwise.
Error error_from(const PGconn* conn, const PGresult* result, const std::string& context);

}  // namespace p2b::pg
