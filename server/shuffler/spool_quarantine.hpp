// The SQLite spool's quarantine table: rows set aside instead of sent
// (spool.hpp, QuarantineEntry). Used by SqliteSpool inside its own
// transactions; the spool's lock is the caller's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/sqlite_db.hpp"
#include "shuffler/spool.hpp"

namespace p2b::shuffler::spool_quarantine {

// CREATE TABLE IF NOT EXISTS for the table.
extern const char* const kSchema;

// Files one entry and logs it by its number and origin (never contents).
void set_aside(common::Database& db, const std::string& origin, const char* reason);

std::vector<QuarantineEntry> list(common::Database& db);
std::size_t size(common::Database& db);
std::size_t purge(common::Database& db, const QuarantineFilter& filter);

}  // namespace p2b::shuffler::spool_quarantine
