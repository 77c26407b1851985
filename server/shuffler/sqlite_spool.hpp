// The SQLite backend of the spool: one file in WAL mode with
// synchronous=FULL, so a committed insert survives a power cut, and one
// connection serialised by a mutex; concurrent requests share commits
// (group_commit.hpp). One process owns the file, so it has one partition
// (numbered by --partition, the label its batches carry) and its lease lives
// in memory. The legacy epoch (all zeros: digests from before epochs, and
// records that name no key) is always open until it is retired.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "common/sqlite_db.hpp"
#include "common/store_open.hpp"
#include "shuffler/spool.hpp"

namespace p2b::shuffler {

class SqliteSpool final : public Spool {
 public:
  // Creates the file and the schema if missing, after the start checks of
  // common/store_open.hpp: throws common::StoreRefused if the file is
  // damaged, not a spool or of a newer schema, SpoolError if it cannot be
  // opened or another process has it.
  explicit SqliteSpool(const std::string& path, uint32_t partition = 0);
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
  const common::StoreHealth* health() const override { return &db_->health(); }

 private:
  std::size_t count(const char* sql);
  void reclaim();
  void load_epochs();
  // Whether the request has a record of a retired epoch (counted in
  // `counts`); throws SpoolError for an epoch never opened.
  bool request_retired(const std::vector<SpoolRecord>& records, InsertCounts* counts);
  bool first_sighting(common::Statement& mark, common::Statement& legacy, const EpochId& epoch,
                      const uint8_t* digest, std::size_t len);
  void check_lease(const Lease& lease) const;

  std::unique_ptr<common::StoreLock> lock_;  // released after db_ closes
  std::mutex mu_;
  std::unique_ptr<common::Database> db_;
  const uint32_t partition_;
  std::set<EpochId> open_;     // opened by this process
  std::set<EpochId> retired_;  // as the epochs table says
  bool has_legacy_ = false;    // legacy digests to consult
  std::string lease_holder_;
  uint64_t lease_token_ = 0;  // 0: nobody holds the lease
  uint64_t tokens_issued_ = 0;
  std::chrono::steady_clock::time_point lease_expiry_{};
};

}  // namespace p2b::shuffler
