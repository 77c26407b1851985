// The SQLite backend of the spool: one file in WAL mode with
// synchronous=FULL, so a committed insert survives a power cut, and one
// connection serialised by a mutex; concurrent requests share commits
// (group_commit.hpp). One process owns the file, so it has one partition
// (numbered by --partition, the label its batches carry) and its lease lives
// in memory. The legacy epoch (all zeros: digests from before epochs, and
// records that name no key) is always open until it is retired.
//
// Checkpoints run off the request path, on a checkpointer thread with its
// own connection. After a batch closes, an acknowledgement or a retirement
// it gives freed pages back and copies the WAL into the file with a PASSIVE
// checkpoint (inserts go on meanwhile), then truncates the WAL to zero bytes
// holding the spool's lock only for the frames committed since: the WAL,
// which holds records in arrival order and the thresholded or forwarded
// ones, is emptied within one checkpoint's time of the call that made it
// stale, retried every 100 ms while it cannot be. Between closes each
// kCheckpointFrames new WAL pages get a PASSIVE checkpoint, finished under
// the lock for the frames committed while it ran, so that the next commit
// writes the WAL from its start again.
//
// Encrypted at rest (schema 6; docs/security.md, "The spool at rest"):
// every report and replay digest is sealed under the spool key
// (sealed_rows.hpp), looked up by keyed tags, in tables whose keys are
// random or keyed, so neither the file nor its WAL holds a report, a digest
// or the order reports came in. A spool of an earlier schema is sealed in
// place the first time it is opened with a key.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/sqlite_db.hpp"
#include "common/store_open.hpp"
#include "shuffler/sealed_schema.hpp"
#include "shuffler/spool.hpp"
#include "shuffler/spool_key.hpp"

namespace p2b::shuffler {

class SqliteSpool final : public Spool {
 public:
  // Creates the file and the schema if missing, after the start checks of
  // common/store_open.hpp: throws common::StoreRefused if the file is
  // damaged, not a spool or of a newer schema, SpoolKeyRefused (nothing
  // changed) if `key` is not the one the spool is sealed under, SpoolError
  // if it cannot be opened or another process has it. Without a key
  // (nullptr) an existing schema-6 spool opens for maintenance only: counts,
  // epochs and the quarantine, none of which holds report data; anything
  // that reads or writes a report throws SpoolKeyRefused.
  SqliteSpool(const std::string& path, std::shared_ptr<const SpoolKey> key, uint32_t partition = 0);
  ~SqliteSpool() override;

  InsertCounts insert(const std::vector<SpoolRecord>& records) override;
  std::vector<InsertCounts> insert_all(
      const std::vector<const std::vector<SpoolRecord>*>& requests) override;
  std::vector<uint32_t> partitions() const override;
  uint32_t partition_of(uint32_t crowd_id) const override;
  std::optional<Lease> acquire_lease(uint32_t partition, const std::string& holder,
                                     std::chrono::milliseconds ttl) override;
  void release_lease(const Lease& lease) override;
  void open_epoch(const EpochId& epoch) override;
  std::size_t retire_epoch(const EpochId& epoch) override;
  bool epoch_retired(const EpochId& epoch) override;
  ClosedBatch close_batch(const server::BatchId& id, const Lease& lease, std::size_t max_records,
                          const BatchSelector& select) override;
  std::optional<server::Batch> oldest_unacknowledged(uint32_t partition) override;
  std::size_t acknowledge(const server::BatchId& id) override;
  std::size_t depth() override;
  std::size_t unbatched() override;
  std::size_t unacknowledged_batches() override;
  std::vector<QuarantineEntry> quarantined() override;
  std::size_t quarantine_size() override;
  std::size_t purge_quarantine(const QuarantineFilter& filter) override;
  bool has_quarantine() const override { return true; }
  const common::StoreHealth* health() const override { return &db_->health(); }

  // Re-seals every row under `next` in one transaction (the lookup tags
  // re-derived), then rewrites the file (VACUUM) and truncates the WAL, so
  // that no ciphertext under the old key is left; from then on only `next`
  // opens the spool. For an offline spool: `p2b-shuffler spool rekey`.
  sealed_schema::Counts rekey(std::shared_ptr<const SpoolKey> next);

  // Waits until the WAL was emptied after every close, acknowledgement and
  // retirement made so far; false if that took longer than `within`.
  bool settle(std::chrono::milliseconds within);

  // WAL pages that make the checkpointer copy them into the file. Inserts
  // dirty pseudo-random pages, so a page is copied once however often it
  // was rewritten in between: fewer, larger checkpoints copy fewer pages
  // per report (the WAL then peaks at about 16 MiB before it restarts).
  static constexpr int kCheckpointFrames = 4000;
  // The WAL's file is kept up to this size between restarts: twice the
  // frames of a checkpoint, so a lagging checkpoint does not cut it either.
  static constexpr int64_t kWalKeptBytes = int64_t{2} * kCheckpointFrames * 4096;

 private:
  void check_key(const std::string& path, int64_t have);
  void upgrade_plain(int64_t have);
  void need_key() const;
  std::size_t count(const char* sql);
  // Asks the checkpointer to empty the WAL (called with mu_ held).
  void request_scrub();
  void checkpointer();
  // One round: PASSIVE, and with `scrub` the vacuum and truncation first
  // and last. False if it must be retried.
  bool checkpoint(bool scrub);
  static int on_wal_commit(void* self, struct sqlite3* db, const char* name, int frames);
  void load_epochs();
  // Whether the request has a record of a retired epoch (counted in
  // `counts`); throws SpoolError for an epoch never opened.
  bool request_retired(const std::vector<SpoolRecord>& records, InsertCounts* counts);
  enum class Sighting { first, outer_replay, inner_replay };
  struct InsertStatements {
    common::Statement mark;    // INSERT of a new (epoch, inner, outer)
    common::Statement find;    // the outer stored with (epoch, inner)
    common::Statement legacy;  // a schema-3 digest
  };
  Sighting sight(InsertStatements& q, const SpoolRecord& r);
  Sighting earlier(InsertStatements& q, const EpochId& epoch, const SpoolRecord& r);
  void check_lease(const Lease& lease) const;
  // Sets damaged rows of a closed batch aside (called with mu_ held).
  void set_aside_batched(const server::BatchId& id, const std::vector<int64_t>& positions,
                         bool whole_batch);

  std::unique_ptr<common::StoreLock> lock_;  // released after db_ closes
  std::mutex mu_;
  std::unique_ptr<common::Database> db_;
  std::shared_ptr<const SpoolKey> key_;  // nullptr: opened for maintenance
  const uint32_t partition_;
  std::set<EpochId> open_;     // opened by this process
  std::set<EpochId> retired_;  // as the epochs table says
  bool has_legacy_ = false;    // legacy digests to consult
  std::string lease_holder_;
  uint64_t lease_token_ = 0;  // 0: nobody holds the lease
  uint64_t tokens_issued_ = 0;
  std::chrono::steady_clock::time_point lease_expiry_{};

  int frames_asked_ = 0;  // the WAL's length at the last checkpoint asked for (under mu_)

  // The checkpointer's state, under ckpt_mu_ (taken after mu_, never before).
  std::unique_ptr<common::Database> checkpoint_db_;
  std::mutex ckpt_mu_;
  std::condition_variable ckpt_wake_;
  std::condition_variable scrubbed_;
  uint64_t scrubs_requested_ = 0;
  uint64_t scrubs_done_ = 0;
  bool wal_full_ = false;
  bool stopping_ = false;
  std::thread checkpointer_;
};

}  // namespace p2b::shuffler
