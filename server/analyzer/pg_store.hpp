// The analyzer's PostgreSQL backend (docs/analyzer.md, "PostgreSQL"): any
// number of workers apply batches into sharded accumulator rows, each batch
// once per id, in one transaction with its inner digests; one publisher sums
// the shards and stores each signed model with its version; every node
// serves the latest stored model. Replay state lives in one LIST partition
// of seen_inner per epoch (analyzer box key), so retiring a key drops one
// table. Thread-safe: each call takes a pooled connection of its own.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "batch_opener.hpp"
#include "central_dp.hpp"
#include "common/pg/pg.hpp"
#include "model_store.hpp"
#include "statistics.hpp"
#include "wire/batch_format.hpp"

namespace p2b::analyzer {

// Accumulator rows per (kind, arm): a worker adds into one picked at
// random, so concurrent workers rarely wait on one another's row lock.
constexpr int32_t kAccumulatorShards = 16;

// A few connections, opened on demand and reused; a broken one is dropped.
// At most kMaxOpen are out at once, so a burst of requests cannot exhaust
// the server's max_connections: take() waits (bounded) for one.
class PgPool {
 public:
  static constexpr std::size_t kMaxOpen = 8;

  explicit PgPool(std::string conninfo) : conninfo_(std::move(conninfo)) {}

  class Lease {
   public:
    Lease(PgPool* pool, std::unique_ptr<pg::Connection> conn)
        : pool_(pool), conn_(std::move(conn)) {}
    ~Lease();
    Lease(Lease&& o) noexcept : pool_(o.pool_), conn_(std::move(o.conn_)) { o.pool_ = nullptr; }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease& operator=(Lease&&) = delete;
    pg::Connection& operator*() { return *conn_; }
    pg::Connection* operator->() { return conn_.get(); }

   private:
    PgPool* pool_;
    std::unique_ptr<pg::Connection> conn_;
  };

  Lease take();
  const std::string& conninfo() const { return conninfo_; }

 private:
  friend class Lease;
  // Returns a lease's slot, and its connection when still usable.
  void give_back(std::unique_ptr<pg::Connection> conn);

  std::string conninfo_;
  std::mutex mu_;
  std::condition_variable freed_;
  std::size_t out_ = 0;  // leases held
  std::vector<std::unique_ptr<pg::Connection>> idle_;
};

// What a worker's transaction did with one verified batch.
struct PgApplied {
  enum class Status { applied, known, quarantine_full } status = Status::applied;
  AppliedBatch known;       // status known: the batch as first applied
  OpenedBatch opened;       // status applied: the screening
  uint64_t version = 0;     // the latest published model version at commit
  uint64_t quarantine = 0;  // quarantine_full: the records it holds
};

// The latest stored model of a kind, as served.
struct StoredModel {
  SignedModel model;
  uint64_t reports = 0;         // the reports its statistics hold
  double released_reports = 0;  // the count it claims: noisy with central DP, else `reports`
};

// A noisy publication as its builder made it from the stored seed.
struct NoisyPublication {
  SignedModel model;
  uint64_t reports = 0;
  double released_reports = 0;
};

class PgAnalyzerStore {
 public:
  // Connects, creates or migrates the schema (pg::migrate, component
  // "analyzer") and binds the database to `id`: common::StoreRefused when it
  // was made for another dim, actions, mode or codebook. pg::Error when the
  // database cannot be reached.
  PgAnalyzerStore(const std::string& conninfo, const StoreIdentity& id);

  // Every node's start, before any other call and before its threads:
  // binds the database to this central-DP choice (pg_central_dp::bind,
  // common::StoreRefused for another). From then on every worker
  // transaction and publication first checks the choice is still this one.
  void bind_central_dp(const CentralDpConfig& want);

  // A worker's start: refuses (common::StoreRefused) any of `epochs` that
  // was retired, and creates the seen_inner partition of each other one.
  void open_epochs(const std::vector<Epoch>& epochs);
  std::set<Epoch> retired_epochs();

  std::optional<AppliedBatch> find_batch(const server::BatchId& id);

  // One transaction: claims the batch id (a known id: status known, nothing
  // written), inserts the digests of `records`' valid inner ciphertexts
  // (ON CONFLICT: one already there is a replay, whichever worker put it),
  // screens `records` with that answer, keeps the quarantine, adds the
  // valid reports' sums (from `sums`) to one shard's rows and stores the
  // ack counts. Retried on a serialization failure, deadlock or lost
  // connection; pg::Error after that.
  using Screen = std::function<OpenedBatch(const std::function<bool(const OpenedRecord&)>&)>;
  using Sums = std::function<Statistics(const std::vector<ValidReport>&)>;
  using Counts = std::function<server::BatchAck(const OpenedBatch&)>;
  PgApplied apply_batch(const server::VerifiedBatch& verified,
                        const std::vector<OpenedRecord>& records, const Screen& screen,
                        const Sums& sums, const Counts& counts, uint64_t max_quarantine,
                        uint64_t now_unix);

  // The quarantine (kept by apply_batch), for a worker's start: the batches
  // with quarantined records, oldest first, and one batch's records.
  std::vector<server::BatchId> quarantined_batches();
  std::vector<QuarantinedRecord> quarantined(const server::BatchId& id);
  // One transaction, serialised with other workers' releases: takes
  // `now_valid` (quarantined records that open valid now) out of the
  // quarantine, skipping any another worker took meanwhile, inserts their
  // digests (a replay is refused), screens them as a batch of their own and
  // adds the valid ones' sums. Returns the screening.
  using ScreenRecords = std::function<OpenedBatch(const std::vector<OpenedRecord>&,
                                                  const std::function<bool(const OpenedRecord&)>&)>;
  OpenedBatch release(const std::vector<OpenedRecord>& now_valid, const ScreenRecords& screen,
                      const Sums& sums);

  // The publisher. try_lead() takes the session advisory lock that makes
  // one publisher (false: another holds it); it is held until this store's
  // publisher connection ends. The sum of every shard of `kind`.
  bool try_lead();
  uint64_t accumulated_reports(ModelKind kind);
  Statistics sum_shards(ModelKind kind, uint32_t dim, uint32_t n_actions);
  // Stores `model` (its version the latest plus one, else pg::Error with
  // 23505) with `reports`, on the publisher connection, dropping all but
  // the newest few versions.
  void store_model(ModelKind kind, const SignedModel& model, uint64_t reports);
  // The central-DP publication of private model `version`, all or nothing
  // on the publisher connection: reads the stored seed (made and stored on
  // first use), has `build` make the signed noisy model from it, charges
  // the version to the ledger once (StoreError if it was, or is past the
  // horizon) and stores the model as store_model does. A publisher killed
  // before the commit leaves nothing: its successor makes the same noise
  // from the same seed, and the ledger never holds a version twice.
  using BuildNoisy = std::function<NoisyPublication(const dp::NoiseSeed& seed)>;
  void store_noisy_model(uint64_t version, uint64_t now_unix, const BuildNoisy& build);
  // The noisy publications charged to the ledger.
  uint64_t central_dp_charges();

  // Every node: the latest stored model, or nullopt before the first; only
  // read in full when its version is not `have_version`.
  std::optional<StoredModel> latest_model(ModelKind kind, uint64_t have_version,
                                          const std::shared_ptr<const StoredModel>& have);

  // `p2b-analyzer retire-key`: records the epoch retired and drops its
  // partition. Returns the digests dropped.
  static uint64_t retire_epoch(const std::string& conninfo, const Epoch& epoch, uint64_t now_unix);

 private:
  PgPool pool_;
  std::mutex lead_mu_;
  std::unique_ptr<pg::Connection> lead_;  // holds the publisher lock
  // Set once by bind_central_dp, before the node's threads start.
  CentralDpConfig central_dp_;
  bool central_dp_bound_ = false;
};

}  // namespace p2b::analyzer
