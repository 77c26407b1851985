#include "shuffler/sealed_schema.hpp"

#include <sodium.h>

#include <string>
#include <vector>

#include "shuffler/row_checksum.hpp"
#include "shuffler/sealed_rows.hpp"
#include "shuffler/spool_quarantine.hpp"

namespace p2b::shuffler::sealed_schema {

namespace {

using common::Statement;
using sealed_rows::LookupTag;
using sealed_rows::Report;

// The four sealed tables under a name suffix: "" for the live ones, "_next"
// while a rekey fills their replacements. Every key is random or keyed, so
// the B-tree order of the rows is pseudo-random, never the arrival order.
std::string tables_sql(const std::string& suffix) {
  return "CREATE TABLE records_sealed" + suffix +
         " (id INTEGER PRIMARY KEY, sealed BLOB NOT NULL) WITHOUT ROWID;"
         "CREATE TABLE batched_sealed" +
         suffix +
         " (batch_id BLOB NOT NULL, position INTEGER NOT NULL, sealed BLOB NOT NULL,"
         " PRIMARY KEY (batch_id, position)) WITHOUT ROWID;"
         "CREATE TABLE seen_sealed" +
         suffix +
         " (epoch BLOB NOT NULL, tag BLOB NOT NULL, sealed BLOB NOT NULL,"
         " PRIMARY KEY (epoch, tag)) WITHOUT ROWID;"
         "CREATE TABLE legacy_sealed" +
         suffix + " (tag BLOB PRIMARY KEY, sealed BLOB NOT NULL) WITHOUT ROWID;";
}

// The tables every schema-6 spool has besides the sealed ones. `batches`
// orders batches (the order they leave in), not reports.
constexpr const char* kCommonTables = R"sql(
CREATE TABLE IF NOT EXISTS epochs (fp BLOB PRIMARY KEY, retired INTEGER NOT NULL DEFAULT 0)
  WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS batches (seq INTEGER PRIMARY KEY AUTOINCREMENT, id BLOB NOT NULL UNIQUE,
  partition_id INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS spool_key (one INTEGER PRIMARY KEY CHECK (one = 1),
  check_value BLOB NOT NULL);
)sql";

void store_check(common::Database& db, const SpoolKey& key) {
  const SpoolKey::CheckValue check = key.check_value();
  Statement put(db, "INSERT OR REPLACE INTO spool_key (one, check_value) VALUES (1, ?1)");
  put.bind_blob(1, check.data(), check.size());
  put.run();
}

// The inserts into one generation of the sealed tables.
struct Writers {
  Statement record, batched, seen, legacy;
  Writers(common::Database& db, const std::string& suffix)
      : record(db, "INSERT INTO records_sealed" + suffix + " (id, sealed) VALUES (?1, ?2)"),
        batched(db, "INSERT INTO batched_sealed" + suffix +
                        " (batch_id, position, sealed) VALUES (?1, ?2, ?3)"),
        seen(db, "INSERT OR IGNORE INTO seen_sealed" + suffix +
                     " (epoch, tag, sealed) VALUES (?1, ?2, ?3)"),
        legacy(db,
               "INSERT OR IGNORE INTO legacy_sealed" + suffix + " (tag, sealed) VALUES (?1, ?2)") {}

  void put_record(const SpoolKey& key, int64_t id, const Report& r) {
    const std::vector<uint8_t> sealed = sealed_rows::seal_record(key, id, r);
    record.bind_int(1, id);
    record.bind_blob(2, sealed.data(), sealed.size());
    record.run();
  }
  void put_batched(const SpoolKey& key, const server::BatchId& batch, int64_t pos,
                   const Report& r) {
    const std::vector<uint8_t> sealed = sealed_rows::seal_batched(key, batch, pos, r);
    batched.bind_blob(1, batch.data(), batch.size());
    batched.bind_int(2, pos);
    batched.bind_blob(3, sealed.data(), sealed.size());
    batched.run();
  }
  void put_seen(const SpoolKey& key, const EpochId& epoch, const sealed_rows::Sighting& s) {
    const LookupTag tag = sealed_rows::seen_tag(key, epoch, s.inner);
    const std::vector<uint8_t> sealed = sealed_rows::seal_seen(key, epoch, tag, s);
    seen.bind_blob(1, epoch.data(), epoch.size());
    seen.bind_blob(2, tag.data(), tag.size());
    seen.bind_blob(3, sealed.data(), sealed.size());
    seen.run();
  }
  void put_legacy(const SpoolKey& key, const EnvelopeDigest& digest) {
    const LookupTag tag = sealed_rows::legacy_tag(key, digest);
    const std::vector<uint8_t> sealed = sealed_rows::seal_legacy(key, tag, digest);
    legacy.bind_blob(1, tag.data(), tag.size());
    legacy.bind_blob(2, sealed.data(), sealed.size());
    legacy.run();
  }
};

// A schema-5 report row, checked against its checksum.
bool plain_report(const Statement& q, int crowd_col, int inner_col, int sum_col, Report* r) {
  const int64_t crowd = q.column_int(crowd_col);
  std::vector<uint8_t> inner = q.column_blob(inner_col);
  const std::vector<uint8_t> sum = q.column_blob(sum_col);
  const bool ok =
      crowd >= 0 && crowd <= int64_t{UINT32_MAX} && inner.size() == r->inner.size() &&
      row_intact(static_cast<uint32_t>(crowd), inner.data(), inner.size(), sum.data(), sum.size());
  if (ok) {
    r->crowd_id = static_cast<uint32_t>(crowd);
    std::copy(inner.begin(), inner.end(), r->inner.begin());
  }
  sodium_memzero(inner.data(), inner.size());
  return ok;
}

std::string batched_origin(const server::BatchId& batch, int64_t pos) {
  return "batch " + server::batch_id_hex(batch) + " position " + std::to_string(pos);
}

}  // namespace

void create(common::Database& db, const SpoolKey& key) {
  db.exec(kCommonTables);
  db.exec(tables_sql(""));
  db.exec(spool_quarantine::kSchema);
  store_check(db, key);
}

bool key_matches(common::Database& db, const SpoolKey& key) {
  Statement q(db, "SELECT check_value FROM spool_key WHERE one = 1");
  if (!q.step()) return false;
  const std::vector<uint8_t> stored = q.column_blob(0);
  const SpoolKey::CheckValue mine = key.check_value();
  return stored.size() == mine.size() &&
         sodium_memcmp(stored.data(), mine.data(), mine.size()) == 0;
}

Counts seal_plain_tables(common::Database& db, const SpoolKey& key) {
  Counts counts;
  db.exec(kCommonTables);
  db.exec(tables_sql(""));
  {
    Writers out(db, "");
    Report r;
    {
      Statement rows(db, "SELECT id, crowd_id, inner, row_sum FROM records");
      while (rows.step()) {
        const int64_t id = rows.column_int(0);
        if (plain_report(rows, 1, 2, 3, &r)) {
          out.put_record(key, id, r);
          ++counts.records;
        } else {
          spool_quarantine::set_aside(db, "unbatched row " + std::to_string(id), kDamagedInSpool);
          ++counts.damaged;
        }
      }
    }
    {
      Statement rows(db, "SELECT batch_id, position, crowd_id, inner, row_sum FROM batched");
      while (rows.step()) {
        server::BatchId batch{};
        rows.column_blob_exact(0, batch.data(), batch.size());
        const int64_t pos = rows.column_int(1);
        if (plain_report(rows, 2, 3, 4, &r)) {
          out.put_batched(key, batch, pos, r);
          ++counts.records;
        } else {
          spool_quarantine::set_aside(db, batched_origin(batch, pos), kDamagedInSpool);
          ++counts.damaged;
        }
      }
    }
    sodium_memzero(&r, sizeof r);
    {
      Statement rows(db, "SELECT epoch, inner_digest, outer_digest FROM seen");
      while (rows.step()) {
        EpochId epoch{};
        sealed_rows::Sighting s;
        rows.column_blob_exact(0, epoch.data(), epoch.size());
        rows.column_blob_exact(1, s.inner.data(), s.inner.size());
        rows.column_blob_exact(2, s.outer.data(), s.outer.size());
        out.put_seen(key, epoch, s);
        ++counts.replay;
      }
    }
    {
      Statement rows(db, "SELECT digest FROM seen_legacy");
      while (rows.step()) {
        EnvelopeDigest digest{};
        rows.column_blob_exact(0, digest.data(), digest.size());
        out.put_legacy(key, digest);
        ++counts.replay;
      }
    }
  }  // the writers' statements go before their tables change
  db.exec("DROP TABLE records; DROP TABLE batched; DROP TABLE seen; DROP TABLE seen_legacy;");
  store_check(db, key);
  return counts;
}

Counts reseal(common::Database& db, const SpoolKey& old, const SpoolKey& next) {
  Counts counts;
  db.exec(tables_sql("_next"));
  {
    Writers out(db, "_next");
    Report r;
    {
      Statement rows(db, "SELECT id, sealed FROM records_sealed");
      while (rows.step()) {
        const int64_t id = rows.column_int(0);
        if (sealed_rows::open_record(old, id, rows.column_blob(1), &r)) {
          out.put_record(next, id, r);
          ++counts.records;
        } else {
          spool_quarantine::set_aside(db, "unbatched row " + std::to_string(id), kDamagedInSpool);
          ++counts.damaged;
        }
      }
    }
    {
      Statement rows(db, "SELECT batch_id, position, sealed FROM batched_sealed");
      while (rows.step()) {
        server::BatchId batch{};
        rows.column_blob_exact(0, batch.data(), batch.size());
        const int64_t pos = rows.column_int(1);
        if (sealed_rows::open_batched(old, batch, pos, rows.column_blob(2), &r)) {
          out.put_batched(next, batch, pos, r);
          ++counts.records;
        } else {
          spool_quarantine::set_aside(db, batched_origin(batch, pos), kDamagedInSpool);
          ++counts.damaged;
        }
      }
    }
    sodium_memzero(&r, sizeof r);
    {
      Statement rows(db, "SELECT epoch, tag, sealed FROM seen_sealed");
      while (rows.step()) {
        EpochId epoch{};
        LookupTag tag{};
        sealed_rows::Sighting s;
        rows.column_blob_exact(0, epoch.data(), epoch.size());
        rows.column_blob_exact(1, tag.data(), tag.size());
        if (sealed_rows::open_seen(old, epoch, tag, rows.column_blob(2), &s)) {
          out.put_seen(next, epoch, s);
          ++counts.replay;
        } else {
          ++counts.damaged;
        }
      }
    }
    {
      Statement rows(db, "SELECT tag, sealed FROM legacy_sealed");
      while (rows.step()) {
        LookupTag tag{};
        EnvelopeDigest digest{};
        rows.column_blob_exact(0, tag.data(), tag.size());
        if (sealed_rows::open_legacy(old, tag, rows.column_blob(1), &digest)) {
          out.put_legacy(next, digest);
          ++counts.replay;
        } else {
          ++counts.damaged;
        }
      }
    }
  }  // the writers' statements go before their tables change
  for (const char* table : {"records_sealed", "batched_sealed", "seen_sealed", "legacy_sealed"}) {
    std::string sql = "DROP TABLE ";
    sql.append(table).append("; ALTER TABLE ").append(table).append("_next RENAME TO ");
    sql.append(table).append(";");
    db.exec(sql);
  }
  store_check(db, next);
  return counts;
}

}  // namespace p2b::shuffler::sealed_schema
