#include "common/pg/error.hpp"

#include <utility>

namespace p2b::pg {

Error::Error(const std::string& what, std::string sqlstate, bool connection_lost)
    : std::runtime_error(what),
      sqlstate_(std::move(sqlstate)),
      connection_lost_(connection_lost || sqlstate_means_connection_lost(sqlstate_)) {}

bool Error::retryable() const {
  return sqlstate_ == "40001" || sqlstate_ == "40P01" || connection_lost_;
}

bool sqlstate_means_connection_lost(const std::string& sqlstate) {
  return sqlstate.rfind("08", 0) == 0 || sqlstate == "57P01" || sqlstate == "57P02" ||
         sqlstate == "57P03";
}

namespace {

std::string trimmed(const char* message) {
  std::string text = message != nullptr ? message : "";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

Error error_from(const PGconn* conn, const PGresult* result, const std::string& context) {
  const bool bad = conn == nullptr || PQstatus(conn) == CONNECTION_BAD;
  if (result != nullptr) {
    const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
    std::string message = trimmed(PQresultErrorMessage(result));
    if (message.empty() && conn != nullptr) message = trimmed(PQerrorMessage(conn));
    return Error(context + ": " + message, state != nullptr ? state : "", bad);
  }
  const std::string message = conn != nullptr ? trimmed(PQerrorMessage(conn)) : "no connection";
  return Error(context + ": " + message, "", bad);
}

}  // namespace p2b::pg
