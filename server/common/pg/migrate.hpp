// Versioned schemas: each component's migrations, applied in order at
// start, once, whatever the number of processes starting together.
#pragma once

#include <string>
#include <vector>

#include "common/pg/connection.hpp"

namespace p2b::pg {

struct Migration {
  int version;      // 1, 2, ..: each above the one before
  std::string sql;  // one or more statements
};

// Creates p2b_schema(component, version) if missing and applies every
// migration above the stored version, each in its own transaction with its
// version update, serialized across processes by a transaction-scoped
// advisory lock derived from `component`. Throws Error when the database's
// version is newer than the newest migration given (it never downgrades)
// or when the versions are not positive and distinct. Returns the version
// now in place (0 for no migration).
int migrate(Connection& conn, const std::string& component,
            const std::vector<Migration>& migrations);

// The advisory lock key of `component`'s migrations (FNV-1a of its name):
// stable across builds, so old and new binaries exclude each other.
int64_t migration_lock_key(const std::string& component);

}  // namespace p2b::pg
