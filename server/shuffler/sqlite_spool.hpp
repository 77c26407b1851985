// The SQLite backend of the spool: one file in WAL mode with
// synchronous=FULL, so a committed insert survives a power cut, and one
// connection serialised by a mutex, which is plenty for a shuffler whose
// cost is the fsync per request anyway.
#pragma once

#include <memory>
#include <mutex>
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
  explicit SqliteSpool(const std::string& path);
  ~SqliteSpool() override;

  InsertCounts insert(const std::vector<SpoolRecord>& records) override;
  std::vector<InsertCounts> insert_all(
      const std::vector<const std::vector<SpoolRecord>*>& requests) override;
  ClosedBatch close_batch(const server::BatchId& id, uint32_t partition, std::size_t max_records,
                          const BatchSelector& select) override;
  std::optional<server::Batch> oldest_unacknowledged() override;
  std::size_t acknowledge(const server::BatchId& id) override;
  std::size_t depth() override;
  std::size_t unbatched() override;
  std::size_t unacknowledged_batches() override;
  const common::StoreHealth* health() const override { return &db_->health(); }

 private:
  std::size_t count(const char* sql);
  void reclaim();

  std::unique_ptr<common::StoreLock> lock_;  // released after db_ closes
  std::mutex mu_;
  std::unique_ptr<common::Database> db_;
};

}  // namespace p2b::shuffler
