#include "common/store_open.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace p2b::common {

namespace {

int64_t pragma_int(const Database& db, const char* pragma) {
  Statement q(db, pragma);
  return q.step() ? q.column_int(0) : 0;
}

bool has_table(const Database& db, const char* name) {
  Statement q(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1");
  q.bind_text(1, name);
  return q.step();
}

void check_kind(Database& db, const StoreKind& kind) {
  const int64_t id = pragma_int(db, "PRAGMA application_id");
  if (id == kind.application_id) return;
  const std::string& path = db.path();
  if (id != 0) {
    throw StoreRefused(path + " is not a " + kind.name + " (application_id " + std::to_string(id) +
                       ", want " + std::to_string(kind.application_id) + ")");
  }
  const bool empty = pragma_int(db, "SELECT COUNT(*) FROM sqlite_master") == 0;
  if (!empty && !has_table(db, kind.legacy_table)) {
    throw StoreRefused(path + " is an SQLite file but not a " + kind.name +
                       " (no application_id and no " + kind.legacy_table + " table)");
  }
  db.exec("PRAGMA application_id=" + std::to_string(kind.application_id));
}

void check_integrity(Database& db, IntegrityCheck check) {
  const char* name = check == IntegrityCheck::full ? "integrity_check" : "quick_check";
  // At most a few lines: enough to name the damage, not to flood the log.
  std::string problems;
  try {
    Statement q(db, std::string("PRAGMA ") + name + "(5)");
    while (q.step()) {
      const std::string line = q.column_text(0);
      if (line == "ok") return;
      problems += (problems.empty() ? "" : "; ") + line;
    }
  } catch (const SqliteError& e) {
    // Damage bad enough stops the check itself.
    if (!is_damage_code(e.code())) throw;
    problems = e.what();
  }
  throw StoreRefused(db.path() + " is damaged: " + name + " found " + problems);
}

}  // namespace

StoreLock::StoreLock(const std::string& store_path) {
  const std::string path = store_path + ".lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, S_IRUSR | S_IWUSR);
  if (fd_ < 0) throw SqliteError(path + ": cannot open: " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK) {
      throw SqliteError(store_path + " is in use by another process (" + path +
                        " is locked): one process per store");
    }
    throw SqliteError(path + ": cannot lock: " + std::strerror(err));
  }
}

StoreLock::~StoreLock() {
  if (fd_ >= 0) ::close(fd_);
}

std::unique_ptr<Database> open_store(const std::string& path, const StoreKind& kind,
                                     IntegrityCheck check) {
  std::unique_ptr<Database> db;
  try {
    db = std::make_unique<Database>(path, kind.incremental_vacuum);
    check_kind(*db, kind);
    check_integrity(*db, check);
    db->arm_health_log();
  } catch (const SqliteError& e) {
    // Damage met while checking (not a database, a torn header) is a
    // refusal too; anything else (permissions, a full disk) is not.
    if (is_damage_code(e.code())) throw StoreRefused(path + ": " + e.what());
    throw;
  }
  return db;
}

int64_t schema_version(Database& db, int64_t newest, const StoreKind& kind) {
  const int64_t have = pragma_int(db, "PRAGMA user_version");
  if (have > newest) {
    throw StoreRefused(db.path() + " has " + kind.name + " schema " + std::to_string(have) +
                       ", newer than this build's " + std::to_string(newest) +
                       ": run the p2b that wrote it, or restore a backup");
  }
  return have;
}

}  // namespace p2b::common
