// The SQLite tables behind the quarantine and the ack counts of applied
// batches, used by SqliteModelStore inside its own transactions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/quarantine_command.hpp"
#include "common/sqlite_db.hpp"
#include "model_store.hpp"

namespace p2b::analyzer::quarantine_table {

// CREATE TABLE IF NOT EXISTS statements for both tables.
extern const char* const kSchema;

// Inside the caller's transaction: the batch's counts (if c has a batch id),
// the records to quarantine and those released. Throws common::SqliteError,
// or StoreError if a released record is no longer in the quarantine.
void write(common::Database& db, const Commit& c);

// The counts stored with an applied batch; false if it has none.
bool read_counts(common::Database& db, const server::BatchId& id, server::BatchAck* out);

uint64_t size(common::Database& db);
bool contains(common::Database& db, const server::InnerDigest& digest);
std::vector<server::BatchId> batches(common::Database& db);
std::vector<QuarantinedRecord> records(common::Database& db, const server::BatchId& id);

// For `p2b-analyzer quarantine` (quarantine_main.hpp): which records a
// listing or a purge takes; every one that matches both.
using Filter = common::QuarantineFilter;
// A record as listed: where it came from and why, never its contents.
struct Listed {
  server::BatchId batch_id{};
  uint32_t position = 0;
  std::string reason;
  int64_t quarantined_unix = 0;
};
std::vector<Listed> list(common::Database& db, const Filter& filter);
// Deletes the matching records; returns how many went.
uint64_t purge(common::Database& db, const Filter& filter);

}  // namespace p2b::analyzer::quarantine_table
