// The rows of one statement, owned (PQclear on destruction) and decoded
// from PostgreSQL's binary format. Every accessor checks the row, the
// column, its type and its length, and throws Error on a mismatch, so a
// wrong cast in SQL fails loudly instead of reading garbage. The layer
// decodes only results of our own server, never untrusted bytes: it has
// no fuzz target for that reason.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <libpq-fe.h>

namespace p2b::pg {

class Result {
 public:
  Result() = default;
  explicit Result(PGresult* result) : result_(result) {}
  ~Result();
  Result(Result&& other) noexcept;
  Result& operator=(Result&& other) noexcept;
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;

  int rows() const;
  int columns() const;
  bool is_null(int row, int col) const;
  int64_t int8(int row, int col) const;
  int32_t int4(int row, int col) const;
  bool boolean(int row, int col) const;
  double float8(int row, int col) const;
  // text, varchar, char(n) and name columns.
  std::string text(int row, int col) const;
  // bytea columns.
  std::vector<uint8_t> bytes(int row, int col) const;
  // Rows inserted, updated or deleted (PQcmdTuples), 0 for other statements.
  uint64_t affected() const;
  // The command tag, e.g. "COMMIT" or "ROLLBACK" (PQcmdStatus).
  std::string command() const;

  const PGresult* native() const { return result_; }

 private:
  // The checked value of a non-null cell of one of `oids`: its bytes and
  // length (which must be `width` unless width is 0).
  const char* cell(int row, int col, std::initializer_list<unsigned> oids, int width,
                   int* length) const;

  PGresult* result_ = nullptr;
};

}  // namespace p2b::pg
