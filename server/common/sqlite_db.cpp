#include "common/sqlite_db.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace p2b::common {

namespace {

constexpr mode_t kOwnerOnly = S_IRUSR | S_IWUSR;

// What a checkpointed WAL is cut back to; it stays open, so this much is
// reused rather than reallocated.
constexpr int64_t kJournalSizeLimit = 4 << 20;

// SQLite creates files 0644 less the umask, and -wal/-shm inherit the main
// file's mode, so the main file is created (or narrowed) here, before SQLite
// opens it. Leftover -wal/-shm files of an older run are narrowed too.
void make_owner_only(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, kOwnerOnly);
  if (fd < 0) throw SqliteError(path + ": cannot open: " + std::strerror(errno));
  const int rc = ::fchmod(fd, kOwnerOnly);
  const int err = errno;
  ::close(fd);
  if (rc != 0) throw SqliteError(path + ": cannot make it owner-only: " + std::strerror(err));
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    const std::string side = path + suffix;
    if (::chmod(side.c_str(), kOwnerOnly) != 0 && errno != ENOENT) {
      throw SqliteError(side + ": cannot make it owner-only: " + std::strerror(errno));
    }
  }
}

}  // namespace

Database::Database(const std::string& path, bool incremental_vacuum) : path_(path), health_(path) {
  make_owner_only(path);
  const int rc =
      sqlite3_open_v2(path.c_str(), &db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  try {
    if (rc != SQLITE_OK) fail(path + ": cannot open");
    sqlite3_busy_timeout(db_, 5000);
    if (incremental_vacuum) exec("PRAGMA auto_vacuum=INCREMENTAL");
    {
      Statement wal(*this, "PRAGMA journal_mode=WAL");
      if (!wal.step() || wal.column_text(0) != "wal") {
        throw SqliteError(path + ": cannot use WAL mode");
      }
    }
    exec("PRAGMA synchronous=FULL");
    exec("PRAGMA journal_size_limit=" + std::to_string(kJournalSizeLimit));
  } catch (...) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw;
  }
}

Database::~Database() {
  sqlite3_close_v2(db_);
}

void Database::fail(const std::string& what) const {
  const int code = db_ != nullptr ? sqlite3_extended_errcode(db_) : SQLITE_NOMEM;
  const std::string message =
      what + ": " + (db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory");
  health_.record_error(is_damage_code(code), message);
  throw SqliteError(message, code);
}

void Database::fail_damaged(const std::string& what) const {
  health_.record_error(true, what);
  throw SqliteError(what, SQLITE_CORRUPT);
}

void Database::incremental_vacuum(int64_t pages) {
  Statement q(*this, "PRAGMA incremental_vacuum(" + std::to_string(pages) + ")");
  while (q.step()) {
  }
}

void Database::exec(const std::string& sql) {
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) fail(sql);
}

int64_t Database::changes() const {
  return sqlite3_changes(db_);
}

bool Database::checkpoint_truncate() {
  const int rc =
      sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
  if (rc == SQLITE_BUSY) return false;
  if (rc != SQLITE_OK) fail("wal_checkpoint(TRUNCATE)");
  return true;
}

bool Database::checkpoint_passive() {
  int frames = 0;
  int copied = 0;
  const int rc =
      sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, &frames, &copied);
  if (rc == SQLITE_BUSY) return false;
  if (rc != SQLITE_OK) fail("wal_checkpoint(PASSIVE)");
  return copied == frames;
}

Statement::Statement(const Database& db, const std::string& sql) : db_(db) {
  if (sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) {
    db.fail("prepare");
  }
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

void Statement::bind_int(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) db_.fail("bind");
}

void Statement::bind_text(int index, const std::string& value) {
  if (sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT,
                          SQLITE_UTF8) != SQLITE_OK) {
    db_.fail("bind");
  }
}

void Statement::bind_blob(int index, const void* data, std::size_t len) {
  if (sqlite3_bind_blob64(stmt_, index, data, len, SQLITE_TRANSIENT) != SQLITE_OK) {
    db_.fail("bind");
  }
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail("step");
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
  db_.fail("step");
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t Statement::column_int(int col) const {
  return sqlite3_column_int64(stmt_, col);
}

std::string Statement::column_text(int col) const {
  const unsigned char* text = sqlite3_column_text(stmt_, col);
  return text != nullptr ? reinterpret_cast<const char*>(text) : "";
}

std::vector<uint8_t> Statement::column_blob(int col) const {
  const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(stmt_, col));
  const int n = sqlite3_column_bytes(stmt_, col);
  return p == nullptr ? std::vector<uint8_t>() : std::vector<uint8_t>(p, p + n);
}

void Statement::column_blob_exact(int col, uint8_t* out, std::size_t len) const {
  const void* data = sqlite3_column_blob(stmt_, col);
  if (data == nullptr || static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)) != len) {
    db_.fail_damaged("a stored blob has the wrong length");
  }
  std::memcpy(out, data, len);
}

Transaction::Transaction(Database& db) : db_(db) {
  // A failed store takes no more writes: nothing it says it stored is sure.
  if (db_.health().failed()) {
    throw SqliteError(db_.path() + " failed earlier: " + db_.health().reason(), SQLITE_CORRUPT);
  }
  db_.exec("BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
  if (!done_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace p2b::common
