#include "common/pg/transaction.hpp"

#include "common/pg/error.hpp"

namespace p2b::pg {

namespace {

const char* begin_statement(Transaction::Isolation isolation) {
  switch (isolation) {
    case Transaction::Isolation::repeatable_read:
      return "BEGIN ISOLATION LEVEL REPEATABLE READ";
    case Transaction::Isolation::serializable:
      return "BEGIN ISOLATION LEVEL SERIALIZABLE";
    case Transaction::Isolation::read_committed:
      break;
  }
  return "BEGIN ISOLATION LEVEL READ COMMITTED";
}

}  // namespace

Transaction::Transaction(Connection& conn, Isolation isolation) : conn_(conn) {
  conn_.exec(begin_statement(isolation));
}

Transaction::~Transaction() {
  if (done_ || !conn_.healthy()) return;
  try {
    conn_.exec("ROLLBACK");
  } catch (const Error&) {
    // The session is lost or broken: the server rolls back when it ends.
  }
}

void Transaction::commit() {
  done_ = true;
  // A COMMIT of an aborted transaction succeeds with the tag ROLLBACK.
  const Result result = conn_.query("COMMIT");
  if (result.command() != "COMMIT") {
    throw Error("the transaction was rolled back, not committed (" + result.command() + ")",
                "25P02");
  }
}

}  // namespace p2b::pg
