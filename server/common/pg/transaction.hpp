// A transaction that rolls back unless committed, so every error path
// leaves the database as it was.
#pragma once

#include "common/pg/connection.hpp"

namespace p2b::pg {

class Transaction {
 public:
  enum class Isolation { read_committed, repeatable_read, serializable };

  // BEGIN at `isolation`.
  explicit Transaction(Connection& conn, Isolation isolation = Isolation::read_committed);
  // ROLLBACK unless committed (nothing to send on a lost connection: the
  // server rolls back a session that ends).
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  // COMMIT; throws Error when the server did not commit (a serialization
  // failure, a deferred constraint, a transaction an earlier error had
  // aborted, a lost connection: then it is unknown whether the commit
  // landed). After a failed commit the transaction is over.
  void commit();

 private:
  Connection& conn_;
  bool done_ = false;
};

}  // namespace p2b::pg
