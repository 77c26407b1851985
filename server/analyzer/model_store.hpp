// Where the single-process analyzer's state lives: applied batch ids with
// their digests and the counts their acks carry, the digests of every inner
// ciphertext applied (per epoch: the analyzer box key it is sealed to), the
// quarantine (records that could not be applied yet), per-arm statistics and
// the latest signed bundle, for the private model and the raw baseline. The
// analyzer's only requirement is that commit() is all-or-nothing.
//
// Statistics are sums (statistics.hpp): this one analyzer writes the new
// totals of the arms a batch touched. The PostgreSQL backend (pg_store.hpp)
// splits the work instead (workers add sums to shards, a publisher signs), so
// it has an interface of its own.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "batch_opener.hpp"
#include "common/store_health.hpp"
#include "dp/tree_noise.hpp"
#include "metrics.hpp"
#include "statistics.hpp"
#include "wire/batch_ack.hpp"
#include "wire/batch_format.hpp"

namespace p2b::analyzer {

enum class ModelKind { private_reports, raw_baseline };

// A signed bundle as served.
struct SignedModel {
  uint64_t version = 0;
  uint64_t created_unix = 0;
  std::vector<uint8_t> bundle;
};

// What a store was created for. Statistics of another shape, aggregation
// mode or codebook must never be mixed in, so reopening checks it.
struct StoreIdentity {
  uint32_t dim = 0;      // private model
  uint32_t raw_dim = 0;  // raw baseline
  uint32_t n_actions = 0;
  std::string mode;
  std::string codebook_fp_hex;
};

// Failures of the backend itself (I/O, corruption, mismatch).
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A batch id as applied: a retried batch with the same digest is a
// duplicate (and gets the same ack again), one with another digest a conflict.
struct AppliedBatch {
  server::BatchDigest digest{};
  uint64_t version = 0;     // the model version its application produced
  server::BatchAck counts;  // records, applied, quarantined, refused (id and digest unset)
};

// A record of a verified batch that could not be opened or does not fit this
// analyzer (wrong key, another shape or codebook): kept, not acknowledged as
// applied, until a start with the right keys and shape applies it.
struct QuarantinedRecord {
  server::InnerDigest digest{};  // of `inner`: no record is quarantined twice
  server::BatchId batch_id{};    // the batch it came in
  uint32_t position = 0;         // its index in that batch
  uint32_t crowd_id = 0;
  server::InnerCiphertext inner{};
  RejectReason reason = RejectReason::malformed;
  uint64_t quarantined_unix = 0;
};

// One commit: the new state of one model, and for private batches the id
// and digest that make a retried batch a duplicate, and the inner digests
// that make a replayed report a replay.
struct Commit {
  ModelKind kind = ModelKind::private_reports;
  std::optional<server::BatchId> batch_id;
  server::BatchDigest batch_digest{};
  uint32_t partition = 0;
  std::vector<server::InnerDigest> inner_digests;
  std::vector<Epoch> inner_epochs;  // the epoch of each of inner_digests
  uint64_t records_applied = 0;
  uint64_t records_rejected = 0;
  server::BatchAck counts;                    // with batch_id: what its ack says
  std::vector<QuarantinedRecord> quarantine;  // to keep
  std::vector<server::InnerDigest> released;  // to take out of the quarantine
  const Statistics* stats = nullptr;
  std::vector<uint32_t> touched_arms;  // only these arms' rows are rewritten
  const SignedModel* model = nullptr;
};

// What a store's private models were released under with central DP
// (central_dp.hpp), and the secret seed of their noise. The seed is as
// sensitive as the exact sums the store already holds: it never leaves it.
struct CentralDpRecord {
  double epsilon = 0.0;
  double delta = 0.0;
  uint64_t horizon = 0;
  dp::NoiseSeed seed{};
};

class ModelStore {
 public:
  virtual ~ModelStore() = default;

  // Records `id` in a new store, or throws StoreError if it differs from the
  // one recorded.
  virtual void bind(const StoreIdentity& id) = 0;
  // Loads one model's statistics (shaped by the caller) and latest bundle;
  // the bundle is empty (version 0) before the first commit.
  virtual void load(ModelKind kind, Statistics* stats, SignedModel* model) = 0;
  virtual std::optional<AppliedBatch> find_batch(const server::BatchId& id) = 0;
  // Whether an inner ciphertext with this digest (of this epoch) was in an
  // applied batch.
  virtual bool inner_seen(const Epoch& epoch, const server::InnerDigest& digest) = 0;
  // The epochs (analyzer box key fingerprints) retired: their digests are
  // gone, so their records are refused. A backend without epochs has none.
  virtual std::set<Epoch> retired_epochs() { return {}; }
  // Atomically: the batch id, digest, counts and inner digests (if any),
  // the records quarantined and released, the touched arms and the model.
  virtual void commit(const Commit& c) = 0;

  // The quarantine. A backend without one holds nothing, but its commit()
  // must still refuse what it cannot keep.
  virtual uint64_t quarantine_size() { return 0; }
  virtual bool in_quarantine(const server::InnerDigest& /*digest*/) { return false; }
  // The batches with quarantined records, oldest first; and one's records.
  virtual std::vector<server::BatchId> quarantined_batches() { return {}; }
  virtual std::vector<QuarantinedRecord> quarantined(const server::BatchId& /*id*/) { return {}; }

  // The central-DP record, if one was ever written. A backend without
  // central DP support has none and refuses to write one.
  virtual std::optional<CentralDpRecord> central_dp() { return std::nullopt; }
  // Writes the record once; throws StoreError if one exists.
  virtual void record_central_dp(const CentralDpRecord& /*record*/) {
    throw StoreError("this store cannot hold central DP settings");
  }

  // The backend's storage health (common/store_health.hpp), if it keeps one.
  virtual const common::StoreHealth* health() const { return nullptr; }
};

}  // namespace p2b::analyzer
