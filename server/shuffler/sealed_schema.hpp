// The SQLite spool's sealed tables (schema 6, sealed_rows.hpp): their
// creation, the one-time sealing of a schema-5 spool's plaintext tables
// when a key is first given, the check that recognises the key, and the
// re-sealing of every row under a new key (`p2b-shuffler spool rekey`).
// Each runs inside the caller's transaction.
#pragma once

#include <cstddef>

#include "common/sqlite_db.hpp"
#include "shuffler/spool_key.hpp"

namespace p2b::shuffler::sealed_schema {

// Creates the sealed tables and stores `key`'s check value.
void create(common::Database& db, const SpoolKey& key);

// Whether the spool's stored check value is `key`'s.
bool key_matches(common::Database& db, const SpoolKey& key);

struct Counts {
  std::size_t records = 0;  // unbatched and batched reports
  std::size_t replay = 0;   // replay entries (per epoch and legacy)
  std::size_t damaged = 0;  // reports set aside (spool_quarantine.hpp) instead
};

// Schema 5 to 6: seals the plaintext tables' rows into new sealed tables
// under `key` and drops the plaintext tables. A report whose checksum fails
// is set aside, not sealed. The caller VACUUMs afterwards, so that no page
// of the plaintext tables stays in the file.
Counts seal_plain_tables(common::Database& db, const SpoolKey& key);

// Opens every row under `old` and seals it under `next`, the lookup tags
// re-derived, into fresh tables that replace the old ones; stores `next`'s
// check value. A report that does not open is set aside; a replay entry
// that does not open is counted in `damaged` and dropped (it can match
// nothing under any key). The caller VACUUMs and truncates the WAL.
Counts reseal(common::Database& db, const SpoolKey& old, const SpoolKey& next);

}  // namespace p2b::shuffler::sealed_schema
