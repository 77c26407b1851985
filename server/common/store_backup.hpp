// An online backup of a live store, taken by another process with SQLite's
// backup API: one read transaction, so the copy is one committed state,
// while the service keeps writing (WAL readers never block it). The copy
// is checked (quick_check) before it is kept (docs/operations.md, "Backup
// and restore").
#pragma once

#include <string>

namespace p2b::common {

// Copies the store at `source` into `dest`, which must not exist; made
// owner-only. Throws SqliteError (nothing is left at `dest`).
void backup_store(const std::string& source, const std::string& dest);

}  // namespace p2b::common
