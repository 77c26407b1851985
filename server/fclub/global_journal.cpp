#include "fclub/global_journal.hpp"

namespace p2b::fclub {

namespace {

constexpr int64_t kSchemaVersion = 1;

// `id` orders the entries as they were accepted. The partial unique index is
// the per-id ledger's guarantee: one row per upload id, whatever the
// service's own checks let through.
constexpr const char* kSchema = R"(
CREATE TABLE IF NOT EXISTS journal (
  id INTEGER PRIMARY KEY,
  kind INTEGER NOT NULL,
  server INTEGER NOT NULL,
  phase INTEGER NOT NULL,
  local_cluster INTEGER NOT NULL,
  number INTEGER NOT NULL,
  body BLOB NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS journal_upload_id
  ON journal (server, phase, local_cluster, number) WHERE kind = 1;
)";

}  // namespace

GlobalJournal::GlobalJournal(const std::string& path) {
  lock_ = std::make_unique<common::StoreLock>(path);
  db_ = common::open_store(path, kFclubGlobalStore);
  common::schema_version(*db_, kSchemaVersion, kFclubGlobalStore);
  common::Transaction tx(*db_);
  db_->exec(kSchema);
  db_->exec("PRAGMA user_version=" + std::to_string(kSchemaVersion));
  tx.commit();
}

void GlobalJournal::append(const JournalEntry& e) {
  common::Transaction tx(*db_);
  common::Statement put(*db_,
                        "INSERT INTO journal (kind, server, phase, local_cluster, number, body) "
                        "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  put.bind_int(1, static_cast<int>(e.kind));
  put.bind_int(2, e.server);
  put.bind_int(3, e.phase);
  put.bind_int(4, e.local_cluster);
  // Versions and seqs stay far below 2^63.
  put.bind_int(5, static_cast<int64_t>(e.number));
  put.bind_blob(6, e.body.data(), e.body.size());
  put.run();
  tx.commit();
}

void GlobalJournal::replay(const std::function<void(const JournalEntry&)>& each) const {
  common::Statement all(*db_,
                        "SELECT kind, server, phase, local_cluster, number, body FROM journal "
                        "ORDER BY id");
  while (all.step()) {
    JournalEntry e;
    const int64_t kind = all.column_int(0);
    if (kind < static_cast<int>(JournalKind::upload) ||
        kind > static_cast<int>(JournalKind::downloads_ack)) {
      db_->fail_damaged("journal entry of unknown kind " + std::to_string(kind));
    }
    e.kind = static_cast<JournalKind>(kind);
    e.server = static_cast<uint32_t>(all.column_int(1));
    e.phase = static_cast<uint32_t>(all.column_int(2));
    e.local_cluster = static_cast<uint32_t>(all.column_int(3));
    e.number = static_cast<uint64_t>(all.column_int(4));
    const std::vector<uint8_t> body = all.column_blob(5);
    e.body.assign(body.begin(), body.end());
    each(e);
  }
}

uint64_t GlobalJournal::entries() const {
  common::Statement n(*db_, "SELECT COUNT(*) FROM journal");
  return n.step() ? static_cast<uint64_t>(n.column_int(0)) : 0;
}

}  // namespace p2b::fclub
