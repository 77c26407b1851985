// The PostgreSQL backend of the spool: any number of ingest and batching
// processes around one database (docs/shuffler.md, "PostgreSQL backend").
//
// - Partitions: fixed when the store is created (a config row); a process
//   asking for another count is refused. partition_of is a fixed hash of the
//   crowd id (partition_hash below), the same in every process and release.
// - Replay state: `shuffler_seen_inner` (one row per inner digest, with the
//   digest of the envelope it came in) is LIST-partitioned by epoch, one
//   child table per key fingerprint, created by open_epoch and dropped by
//   retire_epoch. An insert holds its epochs' rows FOR SHARE, so a
//   retirement waits for it or the insert sees "retired": nothing is ever
//   accepted unchecked. A group of requests is marked seen and stored in
//   one statement.
// - Leases: one row per partition, expiry by the database's clock. A close is
//   one transaction that locks the lease row, checks the token and expiry,
//   and checks them again just before COMMIT; every session runs with an
//   idle_in_transaction_session_timeout and a statement_timeout below the
//   lease's ttl, so a paused batcher's open transaction is ended by the
//   server and cannot commit after it lost the lease.
// - Nothing follows arrival: records have random ids, no serial and no
//   timestamp; batches are ordered by a per-partition close counter.
// - Row integrity (docs/shuffler.md, "Row integrity"): each record's row
//   carries its row_checksum.hpp checksum, checked at close and when a batch
//   is read for delivery; a damaged row goes to `shuffler_quarantine`.
//
// Each call borrows a connection from a small pool (one per concurrent
// caller: the group-commit leader, each batcher, /metrics), so threads never
// share a PGconn. A lost connection is replaced and the transaction run again
// a bounded number of times; what still fails is a SpoolError, and health()
// counts it for /metrics while storage_check() answers /readyz.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/pg/connection.hpp"
#include "common/readiness.hpp"
#include "shuffler/spool.hpp"

namespace p2b::shuffler {

struct PgSpoolOptions {
  // Partitions of a new store; 0 takes what the store has (1 for a new one).
  uint32_t partitions = 0;
  // The longest lease a batcher of this process takes: the session timeouts
  // are kept below it.
  std::chrono::milliseconds lease_ttl{30000};
  std::chrono::milliseconds connect_timeout{5000};
  // Refuse (SpoolError) a database without a shuffler store rather than
  // create one: for commands that only act on an existing store.
  bool must_exist = false;
  // Overrides the session timeouts derived from lease_ttl (0: derived), for
  // commands whose statements may run long (retire-key counts an epoch).
  std::chrono::milliseconds statement_timeout{0};
};

// The partition of a crowd among `partitions`: the first 4 bytes (little
// endian) of BLAKE2b-256 of the crowd id's 4 little-endian bytes, mod
// `partitions`. Fixed and documented: every node must agree, forever.
uint32_t partition_hash(uint32_t crowd_id, uint32_t partitions);

class PgSpool final : public Spool {
 public:
  // Connects, creates or migrates the schema ("shuffler" in p2b_schema) and
  // checks the partition count. Throws common::StoreRefused (from
  // common/store_open.hpp) for another partition count or a newer schema,
  // SpoolError if the database cannot be reached.
  PgSpool(const std::string& conninfo, PgSpoolOptions options);
  ~PgSpool() override;

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
  std::optional<std::size_t> shared_unbatched(uint32_t partition) override;
  std::size_t unacknowledged_batches() override;
  std::vector<QuarantineEntry> quarantined() override;
  std::size_t quarantine_size() override;
  std::size_t purge_quarantine(const QuarantineFilter& filter) override;
  bool has_quarantine() const override { return true; }
  const common::StoreHealth* health() const override { return health_.get(); }

  // /readyz "storage": a round trip to the database within a second.
  common::CheckResult storage_check();
  uint32_t partition_count() const { return partitions_; }

 private:
  class Borrowed;
  std::unique_ptr<pg::Connection> connect();
  // Runs fn(conn) on a pooled connection, again on a new connection after a
  // retryable error (bounded); every failure leaves as SpoolError.
  template <typename Fn>
  auto run(const char* what, Fn&& fn) -> decltype(fn(std::declval<pg::Connection&>()));
  std::size_t count(const char* sql);
  // Gives rows of a store migrated from schema 1 their checksums.
  void fill_row_sums();

  const std::string conninfo_;
  const PgSpoolOptions options_;
  std::chrono::milliseconds statement_timeout_{};
  uint32_t partitions_ = 1;
  std::unique_ptr<common::StoreHealth> health_;
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<pg::Connection>> idle_;
};

}  // namespace p2b::shuffler
