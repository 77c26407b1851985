#include "shuffler/sqlite_util.hpp"

#include <sqlite3.h>

#include <cstring>

namespace p2b::shuffler::sql {

void fail(sqlite3* db, const std::string& what) {
  throw SpoolError("spool: " + what + ": " + (db != nullptr ? sqlite3_errmsg(db) : "no database"));
}

void exec(sqlite3* db, const char* sql) {
  if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(db, sql);
}

Statement::Statement(sqlite3* db, const char* sql) : db_(db) {
  if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) fail(db, "prepare");
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

void Statement::bind_int(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) fail(db_, "bind");
}

void Statement::bind_blob(int index, const uint8_t* data, std::size_t len) {
  if (sqlite3_bind_blob64(stmt_, index, data, len, SQLITE_TRANSIENT) != SQLITE_OK) {
    fail(db_, "bind");
  }
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(db_, "step");
}

void Statement::run() {
  while (step()) {
  }
  reset();
}

bool Statement::run_unless_constraint() {
  const int rc = sqlite3_step(stmt_);
  sqlite3_reset(stmt_);
  if (rc == SQLITE_DONE) return true;
  if ((rc & 0xff) == SQLITE_CONSTRAINT) return false;
  fail(db_, "step");
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t Statement::column_int(int col) {
  return sqlite3_column_int64(stmt_, col);
}

std::string Statement::column_text(int col) {
  const unsigned char* text = sqlite3_column_text(stmt_, col);
  return text != nullptr ? reinterpret_cast<const char*>(text) : "";
}

void Statement::column_blob(int col, uint8_t* out, std::size_t len) {
  const void* data = sqlite3_column_blob(stmt_, col);
  if (data == nullptr || static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)) != len) {
    throw SpoolError("spool: a stored blob has the wrong length");
  }
  std::memcpy(out, data, len);
}

Transaction::Transaction(sqlite3* db) : db_(db) {
  exec(db, "BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
  if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  exec(db_, "COMMIT");
  done_ = true;
}

}  // namespace p2b::shuffler::sql
