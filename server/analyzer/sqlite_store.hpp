// The SQLite backend: one file, WAL journal, synchronous=FULL, so a commit
// that returned survives power loss and a kill at any instant leaves either
// the state before a batch or the state after it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/sqlite_db.hpp"
#include "model_store.hpp"

namespace p2b::analyzer {

class SqliteModelStore : public ModelStore {
 public:
  // Opens or creates the database; throws StoreError.
  explicit SqliteModelStore(const std::string& path);
  ~SqliteModelStore() override;
  SqliteModelStore(const SqliteModelStore&) = delete;
  SqliteModelStore& operator=(const SqliteModelStore&) = delete;

  void bind(const StoreIdentity& id) override;
  void load(ModelKind kind, Statistics* stats, SignedModel* model) override;
  std::optional<AppliedBatch> find_batch(const server::BatchId& id) override;
  bool inner_seen(const server::InnerDigest& digest) override;
  void commit(const Commit& c) override;
  std::optional<CentralDpRecord> central_dp() override;
  void record_central_dp(const CentralDpRecord& record) override;
  uint64_t quarantine_size() override;
  bool in_quarantine(const server::InnerDigest& digest) override;
  std::vector<server::BatchId> quarantined_batches() override;
  std::vector<QuarantinedRecord> quarantined(const server::BatchId& id) override;

 private:
  std::unique_ptr<common::Database> db_;
};

}  // namespace p2b::analyzer
