// The SQLite backend: one file, WAL journal, synchronous=FULL, so a commit
// that returned survives power loss and a kill at any instant leaves either
// the state before a batch or the state after it. Every commit is followed
// by a truncating checkpoint, so the .db file alone holds the latest state.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/sqlite_db.hpp"
#include "common/store_open.hpp"
#include "model_store.hpp"
#include "stats_mac.hpp"

namespace p2b::analyzer {

class SqliteModelStore : public ModelStore {
 public:
  // Opens or creates the database after the start checks of
  // common/store_open.hpp (common::StoreRefused: damaged, another kind,
  // newer schema), and re-MACs statistics written under an older key of
  // `keys` (stats_mac.hpp); StoreError for anything else, and when another
  // process has the store. load() refuses rows that fail their MAC.
  SqliteModelStore(const std::string& path, StatsMacKeys keys);
  ~SqliteModelStore() override;
  SqliteModelStore(const SqliteModelStore&) = delete;
  SqliteModelStore& operator=(const SqliteModelStore&) = delete;

  void bind(const StoreIdentity& id) override;
  void load(ModelKind kind, Statistics* stats, SignedModel* model) override;
  std::optional<AppliedBatch> find_batch(const server::BatchId& id) override;
  bool inner_seen(const Epoch& epoch, const server::InnerDigest& digest) override;
  std::set<Epoch> retired_epochs() override;
  // `p2b-analyzer retire-key` on a stopped analyzer's store: deletes the
  // epoch's digests, records it retired and returns the space to the file
  // system (incremental vacuum). Returns the digests dropped.
  static uint64_t retire_epoch(const std::string& path, const Epoch& epoch, uint64_t now_unix);
  void commit(const Commit& c) override;
  std::optional<CentralDpRecord> central_dp() override;
  void record_central_dp(const CentralDpRecord& record) override;
  uint64_t quarantine_size() override;
  bool in_quarantine(const server::InnerDigest& digest) override;
  std::vector<server::BatchId> quarantined_batches() override;
  std::vector<QuarantinedRecord> quarantined(const server::BatchId& id) override;
  const common::StoreHealth* health() const override { return &db_->health(); }

 private:
  StatsMacKeys keys_;
  std::unique_ptr<common::StoreLock> lock_;  // released after db_ closes
  std::unique_ptr<common::Database> db_;
  bool has_legacy_seen_ = false;  // digests kept from before schema 4
};

}  // namespace p2b::analyzer
