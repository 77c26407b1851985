#include "quarantine_table.hpp"

#include <cstring>

#include "wire/le_bytes.hpp"

namespace p2b::analyzer::quarantine_table {

using common::Statement;

const char* const kSchema = R"sql(
CREATE TABLE IF NOT EXISTS batch_counts(
  batch_id BLOB PRIMARY KEY, records INTEGER NOT NULL, applied INTEGER NOT NULL,
  quarantined INTEGER NOT NULL, refused BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS quarantine(
  digest BLOB PRIMARY KEY, batch_id BLOB NOT NULL, position INTEGER NOT NULL,
  crowd_id INTEGER NOT NULL, inner BLOB NOT NULL, reason TEXT NOT NULL,
  quarantined_unix INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS quarantine_by_batch ON quarantine(batch_id, position);
)sql";

void write(common::Database& db, const Commit& c) {
  if (c.batch_id) {
    std::vector<uint8_t> refused;
    for (const uint32_t r : c.counts.refused) server::wire::put_u32(&refused, r);
    Statement put(db,
                  "INSERT INTO batch_counts(batch_id, records, applied, quarantined, refused) "
                  "VALUES (?, ?, ?, ?, ?)");
    put.bind_blob(1, c.batch_id->data(), c.batch_id->size());
    put.bind_int(2, c.counts.records);
    put.bind_int(3, c.counts.applied);
    put.bind_int(4, c.counts.quarantined);
    put.bind_blob(5, refused.data(), refused.size());
    put.step();
  }
  if (!c.quarantine.empty()) {
    // The primary key refuses a record twice: the caller screens them out.
    Statement put(db,
                  "INSERT INTO quarantine(digest, batch_id, position, crowd_id, inner, reason, "
                  "quarantined_unix) VALUES (?, ?, ?, ?, ?, ?, ?)");
    for (const QuarantinedRecord& q : c.quarantine) {
      put.bind_blob(1, q.digest.data(), q.digest.size());
      put.bind_blob(2, q.batch_id.data(), q.batch_id.size());
      put.bind_int(3, q.position);
      put.bind_int(4, q.crowd_id);
      put.bind_blob(5, q.inner.data(), q.inner.size());
      put.bind_text(6, reject_reason_name(q.reason));
      put.bind_int(7, static_cast<int64_t>(q.quarantined_unix));
      put.run();
    }
  }
  if (!c.released.empty()) {
    Statement del(db, "DELETE FROM quarantine WHERE digest = ?");
    for (const server::InnerDigest& d : c.released) {
      del.bind_blob(1, d.data(), d.size());
      del.run();
      if (db.changes() != 1) throw StoreError("a released record left the quarantine underneath");
    }
  }
}

bool read_counts(common::Database& db, const server::BatchId& id, server::BatchAck* out) {
  Statement q(db,
              "SELECT records, applied, quarantined, refused FROM batch_counts WHERE batch_id = ?");
  q.bind_blob(1, id.data(), id.size());
  if (!q.step()) return false;
  uint8_t refused[4 * server::kAckRefusalReasons];
  q.column_blob_exact(3, refused, sizeof refused);
  out->records = static_cast<uint32_t>(q.column_int(0));
  out->applied = static_cast<uint32_t>(q.column_int(1));
  out->quarantined = static_cast<uint32_t>(q.column_int(2));
  for (std::size_t i = 0; i < server::kAckRefusalReasons; ++i) {
    out->refused[i] = server::wire::get_u32(refused + 4 * i);
  }
  return true;
}

uint64_t size(common::Database& db) {
  Statement q(db, "SELECT COUNT(*) FROM quarantine");
  q.step();
  return static_cast<uint64_t>(q.column_int(0));
}

bool contains(common::Database& db, const server::InnerDigest& digest) {
  Statement q(db, "SELECT 1 FROM quarantine WHERE digest = ?");
  q.bind_blob(1, digest.data(), digest.size());
  return q.step();
}

std::vector<server::BatchId> batches(common::Database& db) {
  std::vector<server::BatchId> out;
  Statement q(db, "SELECT batch_id FROM quarantine GROUP BY batch_id ORDER BY MIN(rowid)");
  while (q.step()) {
    server::BatchId id{};
    q.column_blob_exact(0, id.data(), id.size());
    out.push_back(id);
  }
  return out;
}

std::vector<QuarantinedRecord> records(common::Database& db, const server::BatchId& id) {
  std::vector<QuarantinedRecord> out;
  Statement q(db,
              "SELECT digest, position, crowd_id, inner, quarantined_unix FROM quarantine "
              "WHERE batch_id = ? ORDER BY position");
  q.bind_blob(1, id.data(), id.size());
  while (q.step()) {
    QuarantinedRecord r;
    r.batch_id = id;
    q.column_blob_exact(0, r.digest.data(), r.digest.size());
    r.position = static_cast<uint32_t>(q.column_int(1));
    r.crowd_id = static_cast<uint32_t>(q.column_int(2));
    q.column_blob_exact(3, r.inner.data(), r.inner.size());
    r.quarantined_unix = static_cast<uint64_t>(q.column_int(4));
    out.push_back(r);
  }
  return out;
}

namespace {

constexpr const char* kMatches =
    "(?1 = '' OR reason = ?1) AND (?2 IS NULL OR quarantined_unix < ?2)";

void bind_filter(Statement* q, const Filter& filter) {
  q->bind_text(1, filter.reason);
  if (filter.quarantined_before) q->bind_int(2, *filter.quarantined_before);
}

}  // namespace

std::vector<Listed> list(common::Database& db, const Filter& filter) {
  std::vector<Listed> out;
  Statement q(db, std::string("SELECT batch_id, position, reason, quarantined_unix FROM quarantine "
                              "WHERE ") +
                      kMatches + " ORDER BY rowid");
  bind_filter(&q, filter);
  while (q.step()) {
    Listed& l = out.emplace_back();
    q.column_blob_exact(0, l.batch_id.data(), l.batch_id.size());
    l.position = static_cast<uint32_t>(q.column_int(1));
    l.reason = q.column_text(2);
    l.quarantined_unix = q.column_int(3);
  }
  return out;
}

uint64_t purge(common::Database& db, const Filter& filter) {
  Statement del(db, std::string("DELETE FROM quarantine WHERE ") + kMatches);
  bind_filter(&del, filter);
  del.run();
  return static_cast<uint64_t>(db.changes());
}

}  // namespace p2b::analyzer::quarantine_table
