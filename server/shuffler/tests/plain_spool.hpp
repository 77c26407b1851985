// Spools as p2b wrote them before the spool was sealed (schemas 4 and 5,
// plaintext), made with raw SQL, for the tests of the in-place upgrade.
#pragma once

#include <string>
#include <vector>

#include "common/sqlite_db.hpp"
#include "shuffler/row_checksum.hpp"
#include "shuffler/spool.hpp"
#include "shuffler/spool_quarantine.hpp"

namespace shuffler_test {

// A plaintext spool of `schema` (4: no checksums, no quarantine; 5: both)
// holding `records` unbatched, each with its replay row.
inline void make_plain_spool(const std::string& path, int schema,
                             const std::vector<p2b::shuffler::SpoolRecord>& records) {
  p2b::common::Database raw(path, /*incremental_vacuum=*/true);
  raw.exec(R"sql(
PRAGMA application_id=1345471059;
CREATE TABLE epochs (fp BLOB PRIMARY KEY, retired INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
CREATE TABLE seen (epoch BLOB NOT NULL, inner_digest BLOB NOT NULL,
  outer_digest BLOB NOT NULL, PRIMARY KEY (epoch, inner_digest)) WITHOUT ROWID;
CREATE TABLE seen_legacy (digest BLOB PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE records (id INTEGER PRIMARY KEY, crowd_id INTEGER NOT NULL, inner BLOB NOT NULL);
CREATE TABLE batched (batch_id BLOB NOT NULL, position INTEGER NOT NULL,
  crowd_id INTEGER NOT NULL, inner BLOB NOT NULL, PRIMARY KEY (batch_id, position)) WITHOUT ROWID;
CREATE TABLE batches (seq INTEGER PRIMARY KEY AUTOINCREMENT, id BLOB NOT NULL UNIQUE,
  partition_id INTEGER NOT NULL DEFAULT 0);
INSERT INTO epochs (fp) VALUES (zeroblob(16));
)sql");
  if (schema == 5) {
    raw.exec(
        "ALTER TABLE records ADD COLUMN row_sum BLOB;"
        "ALTER TABLE batched ADD COLUMN row_sum BLOB;");
    raw.exec(p2b::shuffler::spool_quarantine::kSchema);
  }
  raw.exec("PRAGMA user_version=" + std::to_string(schema));
  p2b::common::Statement seen(
      raw, "INSERT INTO seen (epoch, inner_digest, outer_digest) VALUES (?1, ?2, ?3)");
  p2b::common::Statement put(raw, "INSERT INTO records (id, crowd_id, inner) VALUES (?1, ?2, ?3)");
  int64_t id = 1000;
  for (const p2b::shuffler::SpoolRecord& r : records) {
    seen.bind_blob(1, r.epoch.data(), r.epoch.size());
    seen.bind_blob(2, r.inner_digest.data(), r.inner_digest.size());
    seen.bind_blob(3, r.digest.data(), r.digest.size());
    seen.run();
    ++id;
    put.bind_int(1, id);
    put.bind_int(2, r.crowd_id);
    put.bind_blob(3, r.inner.data(), r.inner.size());
    put.run();
    if (schema == 5) {
      p2b::common::Statement sum(raw, "UPDATE records SET row_sum = ?1 WHERE id = ?2");
      const p2b::shuffler::RowSum s =
          p2b::shuffler::row_sum(r.crowd_id, r.inner.data(), r.inner.size());
      sum.bind_blob(1, s.data(), s.size());
      sum.bind_int(2, id);
      sum.run();
    }
  }
}

}  // namespace shuffler_test
