// One thin RAII layer over the SQLite C API for every service store:
// a connection opened with the durability every store relies on, statements
// that finalize themselves, and transactions that roll back unless
// committed, so every error path leaves the database as it was. Every
// failure throws SqliteError; a store translates it into its own interface's
// error with translate_errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/store_health.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace p2b::common {

class SqliteError : public std::runtime_error {
 public:
  explicit SqliteError(const std::string& what, int code = 0)
      : std::runtime_error(what), code_(code) {}
  // SQLite's extended result code, 0 when the failure was not SQLite's.
  int code() const { return code_; }

 private:
  int code_;
};

class Database {
 public:
  // Opens or creates `path` read-write on one serialised connection with a
  // 5 s busy timeout, the WAL journal (checked: some file systems refuse it)
  // and synchronous=FULL, so a commit that returned survives a power cut.
  // The file is made owner-only (0600) whatever the umask or its old mode;
  // SQLite gives its -wal and -shm files the database file's mode. A WAL
  // that a checkpoint emptied is truncated to journal_size_limit (4 MiB).
  // `incremental_vacuum` sets auto_vacuum=INCREMENTAL on a new file (it must
  // precede the first table, and the WAL header), so that
  // incremental_vacuum() can give freed pages back to the file system.
  explicit Database(const std::string& path, bool incremental_vacuum = false);
  // Closing checkpoints the WAL.
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs one or more statements that return no rows.
  void exec(const std::string& sql);
  // Rows changed by the last INSERT, UPDATE or DELETE.
  int64_t changes() const;
  // Copies every committed page into the database file and truncates the
  // WAL to zero bytes, so deleted rows (already zeroed in place by
  // secure_delete) leave no older page version in the WAL. False when a
  // reader holds the WAL (SQLITE_BUSY): the caller retries later.
  bool checkpoint_truncate();
  // Copies what it can of the WAL into the file without waiting for or
  // blocking writers (from a second connection, off the writers' path).
  // True if it copied every frame that was in the WAL when it started (with
  // no writer meanwhile, the next commit then restarts the WAL from its
  // beginning); false if a reader held some back.
  bool checkpoint_passive();
  // Gives up to `pages` free pages back to the file system (0: all).
  void incremental_vacuum(int64_t pages = 0);
  // Throws a SqliteError for SQLite's last error, counted by health().
  [[noreturn]] void fail(const std::string& what) const;
  // Throws a SqliteError for a damage found by the caller (a blob of the
  // wrong length, a bad MAC): the store is failed from now on.
  [[noreturn]] void fail_damaged(const std::string& what) const;

  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }
  // Once a call met damage (corruption, an I/O error), every transaction
  // is refused: see store_health.hpp.
  const StoreHealth& health() const { return health_; }
  // Logs `store_failed` once the store is in use (store_open.hpp).
  void arm_health_log() { health_.arm_log(); }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  mutable StoreHealth health_;
};

class Statement {
 public:
  Statement(const Database& db, const std::string& sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind_int(int index, int64_t value);
  void bind_text(int index, const std::string& value);
  void bind_blob(int index, const void* data, std::size_t len);
  // True while there is a row to read; false once the statement is done.
  bool step();
  // Runs a statement that returns no rows and resets it for another use.
  void run();
  // Like run(), but returns a constraint violation as false instead of
  // throwing.
  bool run_unless_constraint();
  void reset();

  int64_t column_int(int col) const;
  std::string column_text(int col) const;
  std::vector<uint8_t> column_blob(int col) const;
  // Copies a blob column that must be exactly `len` bytes long.
  void column_blob_exact(int col, uint8_t* out, std::size_t len) const;

 private:
  const Database& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE takes the write lock up front, so a transaction never
// fails halfway on a lock upgrade.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

// Runs `f`, turning a SqliteError into `Error(prefix + message)`.
template <typename Error, typename F>
auto translate_errors(const std::string& prefix, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const SqliteError& e) {
    throw Error(prefix + e.what());
  }
}

}  // namespace p2b::common
