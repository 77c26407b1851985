#include "shuffler/spool_quarantine.hpp"

#include <sqlite3.h>

#include <chrono>

#include "common/json_log.hpp"

namespace p2b::shuffler::spool_quarantine {

using common::Statement;

// An integer key that counts up is harmless here: the entries hold no
// report data, only where a damaged row was and when it was found.
const char* const kSchema = R"sql(
CREATE TABLE IF NOT EXISTS quarantine (id INTEGER PRIMARY KEY AUTOINCREMENT,
  origin TEXT NOT NULL, reason TEXT NOT NULL, quarantined_unix INTEGER NOT NULL);
)sql";

namespace {

int64_t now_unix() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void set_aside(common::Database& db, const std::string& origin, const char* reason) {
  Statement put(db,
                "INSERT INTO quarantine (origin, reason, quarantined_unix) VALUES (?1, ?2, ?3)");
  put.bind_text(1, origin);
  put.bind_text(2, reason);
  put.bind_int(3, now_unix());
  put.run();
  // Logged before the transaction commits: a rolled-back close logs a row
  // that is found again (and logged again) by the next one.
  common::service_log().error("record_set_aside",
                              {{"quarantine_id", sqlite3_last_insert_rowid(db.handle())},
                               {"origin", origin},
                               {"reason", std::string(reason)}});
}

std::vector<QuarantineEntry> list(common::Database& db) {
  std::vector<QuarantineEntry> out;
  Statement q(db, "SELECT id, origin, reason, quarantined_unix FROM quarantine ORDER BY id");
  while (q.step()) {
    QuarantineEntry& e = out.emplace_back();
    e.id = q.column_int(0);
    e.origin = q.column_text(1);
    e.reason = q.column_text(2);
    e.quarantined_unix = q.column_int(3);
  }
  return out;
}

std::size_t size(common::Database& db) {
  Statement q(db, "SELECT COUNT(*) FROM quarantine");
  return q.step() ? static_cast<std::size_t>(q.column_int(0)) : 0;
}

std::size_t purge(common::Database& db, const QuarantineFilter& filter) {
  Statement del(db,
                "DELETE FROM quarantine WHERE (?1 = '' OR reason = ?1) AND "
                "(?2 IS NULL OR quarantined_unix < ?2)");
  del.bind_text(1, filter.reason);
  if (filter.quarantined_before) del.bind_int(2, *filter.quarantined_before);
  del.run();
  return static_cast<std::size_t>(db.changes());
}

}  // namespace p2b::shuffler::spool_quarantine
