#include "common/store_backup.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/sqlite_db.hpp"

namespace p2b::common {

namespace {

// Closes a connection opened with sqlite3_open_v2, even when it failed.
struct Connection {
  sqlite3* db = nullptr;
  ~Connection() { sqlite3_close_v2(db); }
  std::string error() const { return db != nullptr ? sqlite3_errmsg(db) : "out of memory"; }
};

void copy(const std::string& source, const std::string& dest) {
  Connection src, dst;
  if (sqlite3_open_v2(source.c_str(), &src.db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    throw SqliteError(source + ": cannot open: " + src.error());
  }
  sqlite3_busy_timeout(src.db, 5000);
  if (sqlite3_open_v2(dest.c_str(), &dst.db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    throw SqliteError(dest + ": cannot open: " + dst.error());
  }
  sqlite3_backup* b = sqlite3_backup_init(dst.db, "main", src.db, "main");
  if (b == nullptr) throw SqliteError(dest + ": cannot start the backup: " + dst.error());
  // All pages in one step: one read snapshot of the source, so a commit
  // meanwhile does not restart the copy.
  const int step = sqlite3_backup_step(b, -1);
  const int finish = sqlite3_backup_finish(b);
  if (step != SQLITE_DONE || finish != SQLITE_OK) {
    throw SqliteError(source + ": backup failed: " + dst.error(), finish);
  }
  sqlite3_stmt* check = nullptr;
  bool ok = sqlite3_prepare_v2(dst.db, "PRAGMA quick_check", -1, &check, nullptr) == SQLITE_OK &&
            sqlite3_step(check) == SQLITE_ROW &&
            std::strcmp(reinterpret_cast<const char*>(sqlite3_column_text(check, 0)), "ok") == 0;
  sqlite3_finalize(check);
  if (!ok) throw SqliteError(dest + ": the copy fails quick_check");
  // The copy's WAL is folded in, so the one file is the whole backup.
  if (sqlite3_wal_checkpoint_v2(dst.db, nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr) !=
      SQLITE_OK) {
    throw SqliteError(dest + ": cannot checkpoint the copy: " + dst.error());
  }
}

}  // namespace

void backup_store(const std::string& source, const std::string& dest) {
  const int fd = ::open(dest.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, S_IRUSR | S_IWUSR);
  if (fd < 0) throw SqliteError(dest + ": cannot create: " + std::strerror(errno));
  ::close(fd);
  try {
    copy(source, dest);
  } catch (...) {
    for (const char* suffix : {"", "-wal", "-shm"}) ::unlink((dest + suffix).c_str());
    throw;
  }
  for (const char* suffix : {"-wal", "-shm"}) ::unlink((dest + suffix).c_str());
}

}  // namespace p2b::common
