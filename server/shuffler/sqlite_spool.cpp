#include "shuffler/sqlite_spool.hpp"

#include "common/store_open.hpp"
#include "shuffler/row_checksum.hpp"
#include "shuffler/sealed_rows.hpp"
#include "shuffler/sealed_schema.hpp"
#include "shuffler/spool_quarantine.hpp"

#include <sodium.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace p2b::shuffler {

namespace {

// 2: seen_inner, and the partition of each batch. 3: auto_vacuum=INCREMENTAL
// and application_id (common/store_open.hpp). 4: replay state per epoch (the
// outer key's fingerprint) in one table, and batched records apart from the
// unbatched ones. 5: a checksum in every record's row (row_checksum.hpp)
// and the quarantine of rows that fail it (spool_quarantine.hpp). 6: every
// report and replay digest sealed under the spool key (sealed_schema.hpp),
// the checksum subsumed by the seal.
constexpr int kSchemaVersion = 6;
constexpr int kLastPlainSchema = 5;

// Schema 5, the last in plaintext: a spool of schemas 1-4 is brought to it
// first, then sealed (sealed_schema::seal_plain_tables). Every table is
// keyed so that nothing keeps the arrival order: `seen` is
// WITHOUT ROWID, ordered by (epoch, inner digest); unbatched records get
// random ids (an integer key that counted up would keep the order in which
// reports came in on disk); batched records are ordered by their shuffled
// position. An accepted envelope touches two random keys (`seen`, `records`)
// and nothing else: the outer digest rides in its inner digest's row, since
// an identical envelope has an identical inner layer, and the unbatched
// records need no index because a close moves its records to `batched`.
constexpr const char* kPlainSchema = R"sql(
CREATE TABLE IF NOT EXISTS epochs (fp BLOB PRIMARY KEY, retired INTEGER NOT NULL DEFAULT 0)
  WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS seen (epoch BLOB NOT NULL, inner_digest BLOB NOT NULL,
  outer_digest BLOB NOT NULL, PRIMARY KEY (epoch, inner_digest)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS seen_legacy (digest BLOB PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS records (
  id INTEGER PRIMARY KEY,
  crowd_id INTEGER NOT NULL,
  inner BLOB NOT NULL,
  row_sum BLOB
);
CREATE TABLE IF NOT EXISTS batched (batch_id BLOB NOT NULL, position INTEGER NOT NULL,
  crowd_id INTEGER NOT NULL, inner BLOB NOT NULL, row_sum BLOB,
  PRIMARY KEY (batch_id, position)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS batches (seq INTEGER PRIMARY KEY AUTOINCREMENT, id BLOB NOT NULL UNIQUE,
  partition_id INTEGER NOT NULL DEFAULT 0);
)sql";

// Schemas 1-3: one replay set for every key, outer and inner digests in two
// tables, and records with a batch column and an index. The old tables are
// renamed first; kPlainSchema then makes the new ones and kEpochMigration moves
// the rows.
constexpr const char* kSetAside = R"sql(
CREATE TABLE IF NOT EXISTS seen_inner (digest BLOB PRIMARY KEY) WITHOUT ROWID;
ALTER TABLE seen RENAME TO seen_v3;
ALTER TABLE seen_inner RENAME TO seen_inner_v3;
DROP INDEX IF EXISTS records_by_batch;
ALTER TABLE records RENAME TO records_v3;
)sql";

// The old digests cannot be given back to the key they came under, so they
// go to `seen_legacy`, which every insert also consults while the legacy
// epoch (all zeros) is open, until an operator retires it: an old envelope
// stays a replay under any key (fail closed).
constexpr const char* kEpochMigration = R"sql(
INSERT OR IGNORE INTO seen_legacy SELECT digest FROM seen_v3;
INSERT OR IGNORE INTO seen_legacy SELECT digest FROM seen_inner_v3;
INSERT INTO records (id, crowd_id, inner) SELECT id, crowd_id, inner FROM records_v3
  WHERE batch_id IS NULL;
INSERT INTO batched (batch_id, position, crowd_id, inner)
  SELECT batch_id, position, crowd_id, inner FROM records_v3
  WHERE batch_id IS NOT NULL;
DROP TABLE seen_v3;
DROP TABLE seen_inner_v3;
DROP TABLE records_v3;
INSERT OR IGNORE INTO epochs (fp) VALUES (zeroblob(16));
)sql";

// Schema 4 had no checksums: the column is added (nullable, as ALTER TABLE
// requires; a row without a checksum fails the check) and filled by
// fill_row_sums from the rows as they are.
constexpr const char* kAddRowSums = R"sql(
ALTER TABLE records ADD COLUMN row_sum BLOB;
ALTER TABLE batched ADD COLUMN row_sum BLOB;
)sql";

constexpr EpochId kLegacyEpoch{};

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

// Schemas 1-4 kept no checksums. The rows get one from their bytes as they
// are now: damage from before the upgrade cannot be told from the truth
// (the start-up page check has run), and refusing instead would strand
// every record of a spool that cannot be drained first (an analyzer down).
// A row of the wrong length still fails its check when it is sealed.
void fill_row_sums(common::Database& db) {
  Statement put(db, "UPDATE records SET row_sum = ?1 WHERE id = ?2");
  Statement records(db, "SELECT id, crowd_id, inner FROM records WHERE row_sum IS NULL");
  while (records.step()) {
    const std::vector<uint8_t> inner = records.column_blob(2);
    const RowSum sum =
        row_sum(static_cast<uint32_t>(records.column_int(1)), inner.data(), inner.size());
    put.bind_blob(1, sum.data(), sum.size());
    put.bind_int(2, records.column_int(0));
    put.run();
  }
  Statement put_batched(db,
                        "UPDATE batched SET row_sum = ?1 WHERE batch_id = ?2 AND position = ?3");
  Statement batched(
      db, "SELECT batch_id, position, crowd_id, inner FROM batched WHERE row_sum IS NULL");
  while (batched.step()) {
    const std::vector<uint8_t> id = batched.column_blob(0);
    const std::vector<uint8_t> inner = batched.column_blob(3);
    const RowSum sum =
        row_sum(static_cast<uint32_t>(batched.column_int(2)), inner.data(), inner.size());
    put_batched.bind_blob(1, sum.data(), sum.size());
    put_batched.bind_blob(2, id.data(), id.size());
    put_batched.bind_int(3, batched.column_int(1));
    put_batched.run();
  }
}

}  // namespace

SqliteSpool::SqliteSpool(const std::string& path, std::shared_ptr<const SpoolKey> key,
                         uint32_t partition)
    : key_(std::move(key)), partition_(partition) {
  if (sodium_init() < 0) throw SpoolError("spool: libsodium cannot start");
  spool_call([&] {
    lock_ = std::make_unique<common::StoreLock>(path);
    db_ = common::open_store(path, common::kShufflerSpool);
    // secure_delete: thresholded and forwarded records are overwritten, not
    // just unlinked.
    db_->exec("PRAGMA secure_delete=ON");
    // A WAL that restarts from its beginning keeps its file, rather than be
    // cut back and grown again on every restart (an ftruncate and fresh
    // blocks each time, 3 % of ingest CPU); after a close the checkpointer
    // still cuts it to zero bytes.
    db_->exec("PRAGMA journal_size_limit=" + std::to_string(kWalKeptBytes));
    const int64_t have = common::schema_version(*db_, kSchemaVersion, common::kShufflerSpool);
    check_key(path, have);
    if (have >= 1 && have <= kLastPlainSchema) {
      upgrade_plain(have);
    } else if (have == 0) {
      Transaction tx(*db_);
      sealed_schema::create(*db_, *key_);
      db_->exec("PRAGMA user_version=" + std::to_string(kSchemaVersion));
      tx.commit();
    }
    // A WAL left by a crash may still hold forwarded or thresholded records.
    db_->checkpoint_truncate();
    load_epochs();
    checkpoint_db_ = std::make_unique<common::Database>(path);
  });
  sqlite3_wal_hook(db_->handle(), &SqliteSpool::on_wal_commit, this);
  checkpointer_ = std::thread([this] { checkpointer(); });
}

// Decided before anything is written: a wrong key changes nothing.
void SqliteSpool::check_key(const std::string& path, int64_t have) {
  if (key_ == nullptr && have == 0) {
    throw SpoolKeyRefused("spool: " + path +
                          " would be a new spool, and a new spool needs its key");
  }
  if (key_ == nullptr && have <= kLastPlainSchema) {
    throw SpoolKeyRefused("spool: " + path +
                          " is not encrypted yet; start p2b-shuffler once with --spool-key to "
                          "encrypt it in place");
  }
  if (key_ != nullptr && have == kSchemaVersion && !sealed_schema::key_matches(*db_, *key_)) {
    throw SpoolKeyRefused("spool: " + path +
                          " is sealed under another key: give the spool key it was made with "
                          "(after a rekey, the new one); nothing was changed");
  }
}

// A spool of schemas 1-5 is brought to schema 5 and its plaintext sealed
// under the key given, in one transaction; then VACUUM rewrites the file,
// so no page of the plaintext tables stays in it.
void SqliteSpool::upgrade_plain(int64_t have) {
  if (have == 1 || have == 2) {
    // Schema 3 reclaims delivered records' pages; an older file gets
    // auto_vacuum by one VACUUM (a copy of the file: needs its size free).
    db_->exec("PRAGMA auto_vacuum=INCREMENTAL");
    db_->exec("VACUUM");
  }
  {
    Transaction tx(*db_);
    if (have <= 3) db_->exec(kSetAside);
    db_->exec(kPlainSchema);
    if (have == 1) {
      db_->exec("ALTER TABLE batches ADD COLUMN partition_id INTEGER NOT NULL DEFAULT 0");
    }
    if (have <= 3) db_->exec(kEpochMigration);
    if (have == 4) db_->exec(kAddRowSums);
    db_->exec(spool_quarantine::kSchema);
    if (have <= 4) fill_row_sums(*db_);
    sealed_schema::seal_plain_tables(*db_, *key_);
    db_->exec("PRAGMA user_version=" + std::to_string(kSchemaVersion));
    tx.commit();
  }
  db_->exec("VACUUM");
}

SqliteSpool::~SqliteSpool() {
  {
    std::lock_guard<std::mutex> lock(ckpt_mu_);
    stopping_ = true;
  }
  ckpt_wake_.notify_all();
  checkpointer_.join();
  sqlite3_wal_hook(db_->handle(), nullptr, nullptr);
}

// Called by SQLite after each commit of the spool's connection (mu_ held),
// with the WAL's length in pages; it replaces wal_autocheckpoint, which would
// checkpoint on the request path. A PASSIVE checkpoint leaves the WAL's
// length as it was (the next commit restarts it at the beginning), so each
// kCheckpointFrames new pages ask for one checkpoint, not every commit.
int SqliteSpool::on_wal_commit(void* self, sqlite3* /*db*/, const char* /*name*/, int frames) {
  auto* spool = static_cast<SqliteSpool*>(self);
  if (frames < spool->frames_asked_) spool->frames_asked_ = 0;  // the WAL restarted
  if (frames - spool->frames_asked_ >= kCheckpointFrames) {
    spool->frames_asked_ = frames;
    std::lock_guard<std::mutex> lock(spool->ckpt_mu_);
    spool->wal_full_ = true;
    spool->ckpt_wake_.notify_one();
  }
  return SQLITE_OK;
}

void SqliteSpool::request_scrub() {
  std::lock_guard<std::mutex> lock(ckpt_mu_);
  ++scrubs_requested_;
  ckpt_wake_.notify_one();
}

bool SqliteSpool::settle(std::chrono::milliseconds within) {
  std::unique_lock<std::mutex> lock(ckpt_mu_);
  const uint64_t target = scrubs_requested_;
  return scrubbed_.wait_for(lock, within, [&] { return scrubs_done_ >= target; });
}

void SqliteSpool::checkpointer() {
  std::unique_lock<std::mutex> lock(ckpt_mu_);
  bool retry = false;
  for (;;) {
    const auto pending = [&] { return wal_full_ || scrubs_done_ != scrubs_requested_; };
    if (retry) {
      ckpt_wake_.wait_for(lock, std::chrono::milliseconds(100), [&] { return stopping_; });
    } else {
      ckpt_wake_.wait(lock, [&] { return stopping_ || pending(); });
    }
    if (!pending()) {
      if (stopping_) return;
      continue;
    }
    const uint64_t target = scrubs_requested_;
    const bool scrub = scrubs_done_ != target;
    wal_full_ = false;
    lock.unlock();
    const bool done = checkpoint(scrub);
    lock.lock();
    retry = !done;
    if (done && scrub) {
      scrubs_done_ = target;
      scrubbed_.notify_all();
    }
    // Closing the spool's connection checkpoints what is left.
    if (stopping_) return;
  }
}

bool SqliteSpool::checkpoint(bool scrub) {
  try {
    if (scrub) {
      // Freed pages go back to the file system, so the file shrinks as
      // batches are acknowledged.
      std::lock_guard<std::mutex> lock(mu_);
      db_->incremental_vacuum();
    }
    // The bulk of the copy, while inserts go on.
    checkpoint_db_->checkpoint_passive();
    if (!scrub) {
      // Commits that went on meanwhile keep the WAL from restarting at its
      // beginning, so it would grow for as long as they do: the frames
      // committed since are copied with the spool's lock held.
      std::lock_guard<std::mutex> lock(mu_);
      return checkpoint_db_->checkpoint_passive();
    }
    // What was committed since, and the WAL cut to zero bytes so that no
    // older page version stays in it.
    std::lock_guard<std::mutex> lock(mu_);
    return db_->checkpoint_truncate();
  } catch (const common::SqliteError&) {
    return false;  // counted by the store's health; retried
  }
}

void SqliteSpool::load_epochs() {
  retired_.clear();
  has_legacy_ = false;
  Statement all(*db_, "SELECT fp, retired FROM epochs");
  while (all.step()) {
    EpochId fp{};
    all.column_blob_exact(0, fp.data(), fp.size());
    if (all.column_int(1) != 0) {
      retired_.insert(fp);
    } else if (fp == kLegacyEpoch) {
      has_legacy_ = true;
    }
  }
}

InsertCounts SqliteSpool::insert(const std::vector<SpoolRecord>& records) {
  return insert_all({&records}).front();
}

bool SqliteSpool::request_retired(const std::vector<SpoolRecord>& records, InsertCounts* counts) {
  for (const SpoolRecord& r : records) {
    if (retired_.count(r.epoch) != 0) ++counts->retired;
    if (r.epoch != kLegacyEpoch && retired_.count(r.epoch) == 0 && open_.count(r.epoch) == 0) {
      throw SpoolError("spool: a record of an epoch that was never opened");
    }
  }
  return counts->retired > 0;
}

// Marks the record's inner digest seen in its epoch, with its outer digest,
// unless it was seen before: then the stored outer digest tells a re-sent
// envelope (the same outer) from its inner re-sealed in a fresh outer layer.
// With schema-3 digests around (has_legacy_), a digest seen under no known
// key, or in the legacy epoch, counts too. Rows are found by their keyed
// tags (sealed_rows.hpp); the digests themselves are never stored in clear.
SqliteSpool::Sighting SqliteSpool::sight(InsertStatements& q, const SpoolRecord& r) {
  if (has_legacy_) {
    for (const auto& [digest, kind] :
         {std::pair{&r.digest, Sighting::outer_replay},
          std::pair{static_cast<const EnvelopeDigest*>(&r.inner_digest), Sighting::inner_replay}}) {
      const sealed_rows::LookupTag tag = sealed_rows::legacy_tag(*key_, *digest);
      q.legacy.bind_blob(1, tag.data(), tag.size());
      const bool known = q.legacy.step();
      q.legacy.reset();
      if (known) return kind;
    }
    if (r.epoch != kLegacyEpoch) {
      const Sighting legacy = earlier(q, kLegacyEpoch, r);
      if (legacy != Sighting::first) return legacy;
    }
  }
  const sealed_rows::LookupTag tag = sealed_rows::seen_tag(*key_, r.epoch, r.inner_digest);
  const std::vector<uint8_t> sealed =
      sealed_rows::seal_seen(*key_, r.epoch, tag, {r.inner_digest, r.digest});
  q.mark.bind_blob(1, r.epoch.data(), r.epoch.size());
  q.mark.bind_blob(2, tag.data(), tag.size());
  q.mark.bind_blob(3, sealed.data(), sealed.size());
  q.mark.run();
  if (db_->changes() != 0) return Sighting::first;
  return earlier(q, r.epoch, r);
}

// How the record was seen before in `epoch`, if it was. A replay row that
// no longer opens is damaged: it counts as a sighting (fail closed).
SqliteSpool::Sighting SqliteSpool::earlier(InsertStatements& q, const EpochId& epoch,
                                           const SpoolRecord& r) {
  const sealed_rows::LookupTag tag = sealed_rows::seen_tag(*key_, epoch, r.inner_digest);
  q.find.bind_blob(1, epoch.data(), epoch.size());
  q.find.bind_blob(2, tag.data(), tag.size());
  Sighting seen = Sighting::first;
  if (q.find.step()) {
    sealed_rows::Sighting stored;
    const bool opened = sealed_rows::open_seen(*key_, epoch, tag, q.find.column_blob(0), &stored);
    seen = opened && stored.outer == r.digest ? Sighting::outer_replay : Sighting::inner_replay;
  }
  q.find.reset();
  return seen;
}

void SqliteSpool::need_key() const {
  if (key_ == nullptr) {
    throw SpoolKeyRefused("spool: opened without its key, for maintenance only");
  }
}

std::vector<InsertCounts> SqliteSpool::insert_all(
    const std::vector<const std::vector<SpoolRecord>*>& requests) {
  need_key();
  std::lock_guard<std::mutex> lock(mu_);
  return spool_call([&]() -> std::vector<InsertCounts> {
    std::vector<InsertCounts> all(requests.size());
    Transaction tx(*db_);
    InsertStatements q{
        Statement(*db_,
                  "INSERT INTO seen_sealed (epoch, tag, sealed) VALUES (?1, ?2, ?3) "
                  "ON CONFLICT DO NOTHING"),
        Statement(*db_, "SELECT sealed FROM seen_sealed WHERE epoch = ?1 AND tag = ?2"),
        Statement(*db_, "SELECT 1 FROM legacy_sealed WHERE tag = ?1")};
    Statement put(*db_, "INSERT INTO records_sealed (id, sealed) VALUES (?1, ?2)");
    for (std::size_t i = 0; i < requests.size(); ++i) {
      InsertCounts& counts = all[i];
      if (request_retired(*requests[i], &counts)) continue;
      for (const SpoolRecord& r : *requests[i]) {
        if (r.partition != partition_) throw SpoolError("spool: a record of another partition");
        const Sighting seen = sight(q, r);
        if (seen == Sighting::outer_replay) {
          ++counts.duplicates;
          continue;
        }
        if (seen == Sighting::inner_replay) {
          ++counts.inner_duplicates;
          continue;
        }
        // A random id collides with odds of about n / 2^63; retry a few times
        // rather than assume it never happens. The id is sealed into the row
        // (its associated data), so each attempt seals afresh.
        bool stored = false;
        for (int attempt = 0; attempt < 8 && !stored; ++attempt) {
          const int64_t id = random_record_id();
          const std::vector<uint8_t> sealed =
              sealed_rows::seal_record(*key_, id, {r.crowd_id, r.inner});
          put.bind_int(1, id);
          put.bind_blob(2, sealed.data(), sealed.size());
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

std::vector<uint32_t> SqliteSpool::partitions() const {
  return {partition_};
}

uint32_t SqliteSpool::partition_of(uint32_t /*crowd_id*/) const {
  return partition_;
}

// One process holds the file (StoreLock), so the lease lives in memory: it
// only has to keep two batchers of this process apart.
std::optional<Lease> SqliteSpool::acquire_lease(uint32_t partition, const std::string& holder,
                                                std::chrono::milliseconds ttl) {
  if (partition != partition_) throw SpoolError("spool: no partition " + std::to_string(partition));
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  if (lease_token_ != 0 && lease_holder_ != holder && now < lease_expiry_) return std::nullopt;
  if (lease_token_ == 0 || lease_holder_ != holder || now >= lease_expiry_) {
    lease_token_ = ++tokens_issued_;
    lease_holder_ = holder;
  }
  lease_expiry_ = now + ttl;
  return Lease{partition_, lease_token_};
}

void SqliteSpool::release_lease(const Lease& lease) {
  std::lock_guard<std::mutex> lock(mu_);
  if (lease.partition == partition_ && lease.token == lease_token_) lease_token_ = 0;
}

void SqliteSpool::check_lease(const Lease& lease) const {
  if (lease.partition != partition_ || lease.token == 0 || lease.token != lease_token_ ||
      std::chrono::steady_clock::now() >= lease_expiry_) {
    throw LeaseLost("spool: the lease of partition " + std::to_string(lease.partition) +
                    " is no longer held");
  }
}

void SqliteSpool::open_epoch(const EpochId& epoch) {
  std::lock_guard<std::mutex> lock(mu_);
  if (retired_.count(epoch) != 0) throw EpochRetired("spool: this key's epoch was retired");
  spool_call([&] {
    Statement add(*db_, "INSERT OR IGNORE INTO epochs (fp) VALUES (?1)");
    add.bind_blob(1, epoch.data(), epoch.size());
    add.run();
  });
  open_.insert(epoch);
}

std::size_t SqliteSpool::retire_epoch(const EpochId& epoch) {
  std::lock_guard<std::mutex> lock(mu_);
  return spool_call([&]() -> std::size_t {
    std::size_t dropped = 0;
    {
      Transaction tx(*db_);
      Statement mark(*db_,
                     "INSERT INTO epochs (fp, retired) VALUES (?1, 1) "
                     "ON CONFLICT (fp) DO UPDATE SET retired = 1");
      mark.bind_blob(1, epoch.data(), epoch.size());
      mark.run();
      Statement drop(*db_, "DELETE FROM seen_sealed WHERE epoch = ?1");
      drop.bind_blob(1, epoch.data(), epoch.size());
      drop.run();
      dropped += static_cast<std::size_t>(db_->changes());
      if (epoch == kLegacyEpoch) {
        db_->exec("DELETE FROM legacy_sealed");
        dropped += static_cast<std::size_t>(db_->changes());
      }
      tx.commit();
    }
    open_.erase(epoch);
    load_epochs();
    request_scrub();
    return dropped;
  });
}

bool SqliteSpool::epoch_retired(const EpochId& epoch) {
  std::lock_guard<std::mutex> lock(mu_);
  return retired_.count(epoch) != 0;
}

ClosedBatch SqliteSpool::close_batch(const server::BatchId& id, const Lease& lease,
                                     std::size_t max_records, const BatchSelector& select) {
  need_key();
  std::lock_guard<std::mutex> lock(mu_);
  check_lease(lease);
  return spool_call([&]() -> ClosedBatch {
    Transaction tx(*db_);
    std::vector<int64_t> ids;
    std::vector<sealed_rows::Report> reports;
    std::vector<uint32_t> crowds;
    std::vector<int64_t> damaged;
    {
      Statement take(*db_, "SELECT id, sealed FROM records_sealed LIMIT ?1");
      take.bind_int(1, static_cast<int64_t>(max_records));
      sealed_rows::Report r;
      while (take.step()) {
        const int64_t row_id = take.column_int(0);
        if (sealed_rows::open_record(*key_, row_id, take.column_blob(1), &r)) {
          ids.push_back(row_id);
          reports.push_back(r);
          crowds.push_back(r.crowd_id);
        } else {
          damaged.push_back(row_id);
        }
      }
      sodium_memzero(&r, sizeof r);
    }
    // The opened reports go with the transaction, however it ends.
    const auto wipe = [&reports] {
      sodium_memzero(reports.data(), reports.size() * sizeof reports[0]);
    };
    ClosedBatch closed;
    closed.taken = ids.size() + damaged.size();
    closed.damaged = damaged.size();
    // A damaged row is never counted towards a crowd nor sent: its crowd id
    // may be the damaged part. It leaves `records_sealed` in this transaction.
    Statement drop(*db_, "DELETE FROM records_sealed WHERE id = ?1");
    for (const int64_t id_of_row : damaged) {
      spool_quarantine::set_aside(*db_, "unbatched row " + std::to_string(id_of_row),
                                  kDamagedInSpool);
      drop.bind_int(1, id_of_row);
      drop.run();
    }
    if (ids.empty()) {
      if (!damaged.empty()) {
        tx.commit();
        request_scrub();
      }
      return closed;
    }

    std::vector<std::size_t> keep;
    try {
      keep = select(crowds);
      std::vector<bool> kept(ids.size(), false);
      Statement assign(
          *db_, "INSERT INTO batched_sealed (batch_id, position, sealed) VALUES (?1, ?2, ?3)");
      for (std::size_t pos = 0; pos < keep.size(); ++pos) {
        const std::size_t i = keep[pos];
        if (i >= ids.size() || kept[i]) throw SpoolError("spool: the batch selection is invalid");
        kept[i] = true;
        // Sealed again to its place in the batch: the row's old ciphertext
        // and its new one cannot be linked without the key.
        const auto position = static_cast<int64_t>(pos);
        const std::vector<uint8_t> sealed =
            sealed_rows::seal_batched(*key_, id, position, reports[i]);
        assign.bind_blob(1, id.data(), id.size());
        assign.bind_int(2, position);
        assign.bind_blob(3, sealed.data(), sealed.size());
        assign.run();
      }
    } catch (...) {
      wipe();
      throw;
    }
    wipe();
    // Every record taken leaves `records_sealed`: the kept ones were sealed
    // into `batched_sealed` (in their shuffled order), the others dropped.
    for (const int64_t row_id : ids) {
      drop.bind_int(1, row_id);
      drop.run();
    }
    if (!keep.empty()) {
      Statement batch(*db_, "INSERT INTO batches (id, partition_id) VALUES (?1, ?2)");
      batch.bind_blob(1, id.data(), id.size());
      batch.bind_int(2, lease.partition);
      batch.run();
    }
    tx.commit();
    // The WAL holds the records as they were written and the thresholded
    // ones; only the shuffled, kept records may stay on disk.
    request_scrub();
    closed.kept = keep.size();
    closed.thresholded = ids.size() - keep.size();
    return closed;
  });
}

std::optional<server::Batch> SqliteSpool::oldest_unacknowledged(uint32_t /*partition*/) {
  need_key();
  std::lock_guard<std::mutex> lock(mu_);
  return spool_call([&]() -> std::optional<server::Batch> {
    // A batch whose every row turns out damaged is gone; the next one is tried.
    for (;;) {
      server::Batch batch;
      {
        // Batches closed before the partition was configured keep the label
        // they closed under; they still leave first.
        Statement oldest(*db_, "SELECT id, partition_id FROM batches ORDER BY seq LIMIT 1");
        if (!oldest.step()) return std::nullopt;
        oldest.column_blob_exact(0, batch.id.data(), batch.id.size());
        batch.partition = static_cast<uint32_t>(oldest.column_int(1));
      }
      std::vector<int64_t> damaged;  // positions
      {
        Statement records(*db_,
                          "SELECT position, sealed FROM batched_sealed "
                          "WHERE batch_id = ?1 ORDER BY position");
        records.bind_blob(1, batch.id.data(), batch.id.size());
        sealed_rows::Report r;
        while (records.step()) {
          const int64_t pos = records.column_int(0);
          if (!sealed_rows::open_batched(*key_, batch.id, pos, records.column_blob(1), &r)) {
            damaged.push_back(pos);
            continue;
          }
          server::BatchRecord& out = batch.records.emplace_back();
          out.crowd_id = r.crowd_id;
          out.inner = r.inner;
        }
        sodium_memzero(&r, sizeof r);
      }
      if (damaged.empty()) return batch;
      set_aside_batched(batch.id, damaged, batch.records.empty());
      if (!batch.records.empty()) return batch;
    }
  });
}

// Moves damaged rows of a closed batch to the quarantine, and the batch
// itself when nothing of it is left. The batch that leaves is then smaller
// than the one closed; if an earlier send of it reached the analyzer, the
// analyzer refuses the changed batch under the same id and delivery stops
// with that error (docs/shuffler.md, "Row integrity").
void SqliteSpool::set_aside_batched(const server::BatchId& id,
                                    const std::vector<int64_t>& positions, bool whole_batch) {
  Transaction tx(*db_);
  const std::string id_hex = server::batch_id_hex(id);
  Statement drop(*db_, "DELETE FROM batched_sealed WHERE batch_id = ?1 AND position = ?2");
  for (const int64_t pos : positions) {
    spool_quarantine::set_aside(*db_, "batch " + id_hex + " position " + std::to_string(pos),
                                kDamagedInSpool);
    drop.bind_blob(1, id.data(), id.size());
    drop.bind_int(2, pos);
    drop.run();
  }
  if (whole_batch) {
    Statement batch(*db_, "DELETE FROM batches WHERE id = ?1");
    batch.bind_blob(1, id.data(), id.size());
    batch.run();
  }
  tx.commit();
  request_scrub();
}

std::size_t SqliteSpool::acknowledge(const server::BatchId& id) {
  std::lock_guard<std::mutex> lock(mu_);
  return spool_call([&]() -> std::size_t {
    Transaction tx(*db_);
    Statement records(*db_, "DELETE FROM batched_sealed WHERE batch_id = ?1");
    records.bind_blob(1, id.data(), id.size());
    records.run();
    const auto deleted = static_cast<std::size_t>(db_->changes());
    Statement batch(*db_, "DELETE FROM batches WHERE id = ?1");
    batch.bind_blob(1, id.data(), id.size());
    batch.run();
    tx.commit();
    request_scrub();  // the forwarded records' pages, and their older versions in the WAL
    return deleted;
  });
}

sealed_schema::Counts SqliteSpool::rekey(std::shared_ptr<const SpoolKey> next) {
  need_key();
  if (next == nullptr) throw SpoolKeyRefused("spool: no new key to rekey to");
  std::lock_guard<std::mutex> lock(mu_);
  return spool_call([&]() -> sealed_schema::Counts {
    sealed_schema::Counts counts;
    {
      Transaction tx(*db_);
      counts = sealed_schema::reseal(*db_, *key_, *next);
      tx.commit();
    }
    key_ = std::move(next);
    // The old tables' pages were freed (and zeroed: secure_delete); VACUUM
    // rewrites the file without them and the truncation empties the WAL,
    // which held both generations.
    db_->exec("VACUUM");
    db_->checkpoint_truncate();
    return counts;
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
  return count(
      "SELECT (SELECT COUNT(*) FROM records_sealed) + (SELECT COUNT(*) FROM batched_sealed)");
}

std::size_t SqliteSpool::unbatched() {
  return count("SELECT COUNT(*) FROM records_sealed");
}

std::size_t SqliteSpool::unacknowledged_batches() {
  return count("SELECT COUNT(*) FROM batches");
}

std::vector<QuarantineEntry> SqliteSpool::quarantined() {
  std::lock_guard<std::mutex> lock(mu_);
  return spool_call([&] { return spool_quarantine::list(*db_); });
}

std::size_t SqliteSpool::quarantine_size() {
  std::lock_guard<std::mutex> lock(mu_);
  return spool_call([&] { return spool_quarantine::size(*db_); });
}

std::size_t SqliteSpool::purge_quarantine(const QuarantineFilter& filter) {
  std::lock_guard<std::mutex> lock(mu_);
  return spool_call([&] { return spool_quarantine::purge(*db_, filter); });
}

}  // namespace p2b::shuffler
