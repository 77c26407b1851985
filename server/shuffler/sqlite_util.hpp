// Thin RAII over the SQLite C API: statements that finalize themselves and
// transactions that roll back unless committed, so every error path of the
// spool leaves the database as it was. Every failure throws SpoolError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "shuffler/spool.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace p2b::shuffler::sql {

[[noreturn]] void fail(sqlite3* db, const std::string& what);

void exec(sqlite3* db, const char* sql);

class Statement {
 public:
  Statement(sqlite3* db, const char* sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind_int(int index, int64_t value);
  void bind_blob(int index, const uint8_t* data, std::size_t len);
  // True while there is a row to read; false once the statement is done.
  bool step();
  // Runs a statement that returns no rows and resets it for another use.
  void run();
  // Like run(), but returns a constraint violation as false instead of
  // throwing.
  bool run_unless_constraint();
  void reset();

  int64_t column_int(int col);
  std::string column_text(int col);
  // Copies a blob column that must be exactly `len` bytes long.
  void column_blob(int col, uint8_t* out, std::size_t len);

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE takes the write lock up front, so a transaction never
// fails halfway on a lock upgrade.
class Transaction {
 public:
  explicit Transaction(sqlite3* db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  sqlite3* db_;
  bool done_ = false;
};

}  // namespace p2b::shuffler::sql
