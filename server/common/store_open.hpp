// Opening a service's store: one process per store, the right kind of
// file, and no damage. A store that fails a check is refused with
// StoreRefused, which a service turns into exit code kExitStoreRefused
// (docs/operations.md, "Store checks at start"): restarting cannot help,
// an operator must restore or move the file.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "common/sqlite_db.hpp"

namespace p2b::common {

// The store is damaged, of another kind, or of a schema this build cannot
// use. The message names the file and the problem.
class StoreRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Which service a store belongs to: PRAGMA application_id, so that neither
// service adopts the other's file nor any other SQLite file.
struct StoreKind {
  const char* name;        // for messages: "shuffler spool"
  int32_t application_id;  // a distinct value per service
  // A table only this kind's stores had before application_id was set: such
  // a file is adopted (and stamped) rather than refused.
  const char* legacy_table;
  bool incremental_vacuum;  // auto_vacuum=INCREMENTAL on a new file
};

inline constexpr StoreKind kShufflerSpool{"shuffler spool", 0x50324253, "records", true};  // "P2BS"
inline constexpr StoreKind kAnalyzerStore{"analyzer store", 0x50324241, "applied_batches",
                                          false};  // "P2BA"

// An exclusive flock on `<store>.lock`, held for the object's lifetime; the
// kernel releases it when the process dies, so a crash leaves no stale lock.
// A second process (or a second open in this one) throws SqliteError naming
// the file. A separate file, because closing any descriptor of the database
// file itself would drop SQLite's own POSIX locks.
class StoreLock {
 public:
  explicit StoreLock(const std::string& store_path);
  ~StoreLock();
  StoreLock(const StoreLock&) = delete;
  StoreLock& operator=(const StoreLock&) = delete;

 private:
  int fd_ = -1;
};

enum class IntegrityCheck { quick, full };

// Opens `path` as a store of `kind`: a new (empty) file is stamped with the
// kind's application_id; an existing one must carry it (or be a legacy file
// of this kind) and pass PRAGMA quick_check (or integrity_check). The store
// then checks its own schema version (PRAGMA user_version). Throws
// StoreRefused for damage or the wrong kind, SqliteError if the file cannot
// be opened at all (a missing directory, permissions).
std::unique_ptr<Database> open_store(const std::string& path, const StoreKind& kind,
                                     IntegrityCheck check = IntegrityCheck::quick);

// The schema version of an open store; StoreRefused when it is newer than
// `newest` (written by a later p2b: run that one, or restore a backup).
int64_t schema_version(Database& db, int64_t newest, const StoreKind& kind);

}  // namespace p2b::common
