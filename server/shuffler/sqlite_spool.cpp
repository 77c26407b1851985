#include "shuffler/sqlite_spool.hpp"

#include "common/store_open.hpp"

#include <sodium.h>

#include <cstdint>
#include <utility>

namespace p2b::shuffler {

namespace {

// 2: seen_inner, and the partition of each batch. 3: auto_vacuum=INCREMENTAL
// and application_id (common/store_open.hpp).
constexpr int kSchemaVersion = 3;

// `seen` (outer digests) and `seen_inner` (inner digests) are WITHOUT ROWID,
// so they are ordered by digest and keep no arrival order. Records get random ids for the same
// reason: an integer key that counted up would keep the order in which reports came in on disk.
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS seen (digest BLOB PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS seen_inner (digest BLOB PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS records (
  id INTEGER PRIMARY KEY,
  crowd_id INTEGER NOT NULL,
  inner BLOB NOT NULL,
  batch_id BLOB,
  position INTEGER
);
CREATE INDEX IF NOT EXISTS records_by_batch ON records (batch_id, position);
CREATE TABLE IF NOT EXISTS batches (seq INTEGER PRIMARY KEY AUTOINCREMENT, id BLOB NOT NULL UNIQUE,
  partition_id INTEGER NOT NULL DEFAULT 0);
)sql";

using common::Statement;
using common::Transaction;

// Every storage failure leaves as the interface's SpoolError.
template <typename F>
auto spool_call(F&& f) {
  return common::translate_errors<SpoolError>("spool: ", std::forward<F>(f));
}

int64_t random_record_id() {
  uint64_t v = 0;
  randombytes_buf(&v, sizeof v);
  return static_cast<int64_t>(v & INT64_MAX);
}

}  // namespace

SqliteSpool::SqliteSpool(const std::string& path) {
  if (sodium_init() < 0) throw SpoolError("spool: libsodium cannot start");
  spool_call([&] {
    lock_ = std::make_unique<common::StoreLock>(path);
    db_ = common::open_store(path, common::kShufflerSpool);
    // secure_delete: thresholded and forwarded records are overwritten, not
    // just unlinked.
    db_->exec("PRAGMA secure_delete=ON");
    const int64_t have = common::schema_version(*db_, kSchemaVersion, common::kShufflerSpool);
    if (have == 1 || have == 2) {
      // Schema 3 reclaims delivered records' pages; an older file gets
      // auto_vacuum by one VACUUM (a copy of the file: needs its size free).
      db_->exec("PRAGMA auto_vacuum=INCREMENTAL");
      db_->exec("VACUUM");
    }
    Transaction tx(*db_);
    db_->exec(kSchema);
    if (have == 1) {
      db_->exec("ALTER TABLE batches ADD COLUMN partition_id INTEGER NOT NULL DEFAULT 0");
    }
    db_->exec("PRAGMA user_version=" + std::to_string(kSchemaVersion));
    tx.commit();
    // A WAL left by a crash may still hold forwarded or thresholded records.
    db_->checkpoint_truncate();
  });
}

void SqliteSpool::reclaim() {
  // Freed pages go back to the file system, so the file shrinks as batches
  // are acknowledged; the truncating checkpoint then empties the WAL.
  db_->incremental_vacuum();
  db_->checkpoint_truncate();
}

SqliteSpool::~SqliteSpool() = default;

InsertCounts SqliteSpool::insert(const std::vector<SpoolRecord>& records) {
  return insert_all({&records}).front();
}

std::vector<InsertCounts> SqliteSpool::insert_all(
    const std::vector<const std::vector<SpoolRecord>*>& requests) {
  std::lock_guard<std::mutex> lock(mu_);
  return spool_call([&]() -> std::vector<InsertCounts> {
    std::vector<InsertCounts> all(requests.size());
    Transaction tx(*db_);
    Statement seen(*db_, "INSERT OR IGNORE INTO seen (digest) VALUES (?1)");
    Statement seen_inner(*db_, "INSERT OR IGNORE INTO seen_inner (digest) VALUES (?1)");
    Statement put(*db_, "INSERT INTO records (id, crowd_id, inner) VALUES (?1, ?2, ?3)");
    for (std::size_t i = 0; i < requests.size(); ++i) {
      InsertCounts& counts = all[i];
      for (const SpoolRecord& r : *requests[i]) {
        seen.bind_blob(1, r.digest.data(), r.digest.size());
        seen.run();
        if (db_->changes() == 0) {
          ++counts.duplicates;
          continue;
        }
        seen_inner.bind_blob(1, r.inner_digest.data(), r.inner_digest.size());
        seen_inner.run();
        if (db_->changes() == 0) {
          ++counts.inner_duplicates;
          continue;
        }
        // A random id collides with odds of about n / 2^63; retry a few times
        // rather than assume it never happens.
        bool stored = false;
        for (int attempt = 0; attempt < 8 && !stored; ++attempt) {
          put.bind_int(1, random_record_id());
          put.bind_int(2, r.crowd_id);
          put.bind_blob(3, r.inner.data(), r.inner.size());
          stored = put.run_unless_constraint();
        }
        if (!stored) throw SpoolError("spool: no free record id");
        ++counts.accepted;
      }
    }
    tx.commit();
    return all;
  });
}

ClosedBatch SqliteSpool::close_batch(const server::BatchId& id, uint32_t partition,
                                     std::size_t max_records, const BatchSelector& select) {
  std::lock_guard<std::mutex> lock(mu_);
  return spool_call([&]() -> ClosedBatch {
    Transaction tx(*db_);
    std::vector<int64_t> ids;
    std::vector<uint32_t> crowds;
    {
      Statement take(*db_, "SELECT id, crowd_id FROM records WHERE batch_id IS NULL LIMIT ?1");
      take.bind_int(1, static_cast<int64_t>(max_records));
      while (take.step()) {
        ids.push_back(take.column_int(0));
        crowds.push_back(static_cast<uint32_t>(take.column_int(1)));
      }
    }
    ClosedBatch closed;
    closed.taken = ids.size();
    if (ids.empty()) return closed;

    const std::vector<std::size_t> keep = select(crowds);
    std::vector<bool> kept(ids.size(), false);
    Statement assign(*db_, "UPDATE records SET batch_id = ?1, position = ?2 WHERE id = ?3");
    for (std::size_t pos = 0; pos < keep.size(); ++pos) {
      const std::size_t i = keep[pos];
      if (i >= ids.size() || kept[i]) throw SpoolError("spool: the batch selection is invalid");
      kept[i] = true;
      assign.bind_blob(1, id.data(), id.size());
      assign.bind_int(2, static_cast<int64_t>(pos));
      assign.bind_int(3, ids[i]);
      assign.run();
    }
    Statement drop(*db_, "DELETE FROM records WHERE id = ?1");
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (kept[i]) continue;
      drop.bind_int(1, ids[i]);
      drop.run();
    }
    if (!keep.empty()) {
      Statement batch(*db_, "INSERT INTO batches (id, partition_id) VALUES (?1, ?2)");
      batch.bind_blob(1, id.data(), id.size());
      batch.bind_int(2, partition);
      batch.run();
    }
    tx.commit();
    // The WAL holds the records in arrival order and the thresholded ones;
    // only the shuffled, kept records may stay on disk.
    db_->checkpoint_truncate();
    closed.kept = keep.size();
    closed.thresholded = ids.size() - keep.size();
    return closed;
  });
}

std::optional<server::Batch> SqliteSpool::oldest_unacknowledged() {
  std::lock_guard<std::mutex> lock(mu_);
  return spool_call([&]() -> std::optional<server::Batch> {
    server::Batch batch;
    {
      Statement oldest(*db_, "SELECT id, partition_id FROM batches ORDER BY seq LIMIT 1");
      if (!oldest.step()) return std::nullopt;
      oldest.column_blob_exact(0, batch.id.data(), batch.id.size());
      batch.partition = static_cast<uint32_t>(oldest.column_int(1));
    }
    Statement records(*db_,
                      "SELECT crowd_id, inner FROM records WHERE batch_id = ?1 ORDER BY position");
    records.bind_blob(1, batch.id.data(), batch.id.size());
    while (records.step()) {
      server::BatchRecord& r = batch.records.emplace_back();
      r.crowd_id = static_cast<uint32_t>(records.column_int(0));
      records.column_blob_exact(1, r.inner.data(), kInnerBytes);
    }
    return batch;
  });
}

std::size_t SqliteSpool::acknowledge(const server::BatchId& id) {
  std::lock_guard<std::mutex> lock(mu_);
  return spool_call([&]() -> std::size_t {
    Transaction tx(*db_);
    Statement records(*db_, "DELETE FROM records WHERE batch_id = ?1");
    records.bind_blob(1, id.data(), id.size());
    records.run();
    const auto deleted = static_cast<std::size_t>(db_->changes());
    Statement batch(*db_, "DELETE FROM batches WHERE id = ?1");
    batch.bind_blob(1, id.data(), id.size());
    batch.run();
    tx.commit();
    reclaim();  // the forwarded records' pages, and their older versions in the WAL
    return deleted;
  });
}

std::size_t SqliteSpool::count(const char* sql_text) {
  std::lock_guard<std::mutex> lock(mu_);
  return spool_call([&]() -> std::size_t {
    Statement q(*db_, sql_text);
    return q.step() ? static_cast<std::size_t>(q.column_int(0)) : 0;
  });
}

std::size_t SqliteSpool::depth() {
  return count("SELECT COUNT(*) FROM records");
}

std::size_t SqliteSpool::unbatched() {
  return count("SELECT COUNT(*) FROM records WHERE batch_id IS NULL");
}

std::size_t SqliteSpool::unacknowledged_batches() {
  return count("SELECT COUNT(*) FROM batches");
}

}  // namespace p2b::shuffler
