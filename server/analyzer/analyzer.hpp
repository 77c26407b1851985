// The analyzer's state machine, independent of HTTP: verifies batches against
// the pinned shuffler keys, applies each once per batch id (bound to its
// digest), quarantines the records it cannot open or use (in the same
// commit) and acknowledges the batch with a signed ack that counts what
// became of every record, retries the quarantine at start, applies raw-baseline
// requests, signs a new model after each, and keeps the served models equal
// to the stored ones. Thread-safe.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "batch_opener.hpp"
#include "central_dp.hpp"
#include "codebook_file.hpp"
#include "common/json_log.hpp"
#include "features.hpp"
#include "key_ring.hpp"
#include "metrics.hpp"
#include "model_store.hpp"
#include "raw_format.hpp"
#include "statistics.hpp"
#include "wire/batch_format.hpp"

namespace p2b::analyzer {

using common::LogField;
using common::Logger;

struct AnalyzerSettings {
  AggregationMode mode = AggregationMode::centroid;
  uint32_t n_actions = 0;
  double lambda = 1.0;
  bool raw_enabled = false;
  // The private model is withheld (404) until this many reports back it: a
  // warm start from a handful of (mostly positive) tuples can do worse than
  // cold (docs/demo.md). The raw baseline is never withheld.
  uint64_t min_reports = 0;
  // Seconds after created_unix when devices given a time refuse a model
  // (its not_after_unix); 0: models never expire.
  uint64_t model_ttl = 0;
  // Unix seconds for created_unix; the system clock unless a test sets it.
  std::function<uint64_t()> clock;
  // The shuffler verify keys (shuffler.sign.pk) a batch must be signed by.
  std::vector<server::VerifyKey> shuffler_keys;
  // l, applied again to each crowd's valid reports (batch_opener.hpp).
  std::size_t threshold = 10;
  // sigma of the noisy threshold, as the shuffler's --noisy-threshold; 0:
  // plain. A plain threshold here behind a noisy one at the shuffler would
  // restore the sharp edge the noise removes.
  double threshold_noise = 0;
  // Records the quarantine may hold; a batch that would take it past this
  // is refused whole (quarantine_full), so its sender keeps it.
  uint64_t max_quarantine = 1000000;
  // Noise on the released private statistics (central_dp.hpp); off at
  // epsilon 0. Needs the default mode. With it on, min_reports compares
  // with the released (noisy) count. The raw baseline is never noised.
  CentralDpConfig central_dp;
};

// A batch refused because one more private release would spend more than the
// configured central-DP budget; nothing was applied.
class CentralDpExhausted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class BatchResult {
  applied,
  duplicate,           // this id with this digest was applied before: acked again
  conflict,            // this id was applied with another digest: nothing changes
  malformed,           // refused before any state was read
  unknown_signer,      // likewise
  bad_signature,       // likewise
  quarantine_full,     // its bad records would overfill the quarantine: nothing changes
  threshold_mismatch,  // signed with other crowd thresholds than ours: refused before any state
};

struct BatchOutcome {
  BatchResult result = BatchResult::applied;
  uint64_t applied = 0;
  uint64_t quarantined = 0;
  uint64_t rejected = 0;     // not applied: quarantined or refused
  RejectCounts by_reason{};  // the rejected, by reason
  uint64_t version = 0;      // the version the batch's application produced
  std::vector<uint8_t> ack;  // applied or duplicate: wire/batch_ack.hpp
  std::string error;         // the refusals: why
};

struct RawOutcome {
  uint64_t applied = 0;
  uint64_t version = 0;
};

// What the HTTP API (http_api.hpp) needs of a node: the single-process
// Analyzer below, or a PostgreSQL worker or publisher (pg_node.hpp).
class AnalyzerApi {
 public:
  virtual ~AnalyzerApi() = default;
  virtual BatchOutcome receive_batch(const uint8_t* data, std::size_t len) = 0;
  virtual RawOutcome apply_raw(const RawBatch& raw) = 0;
  virtual std::shared_ptr<const SignedModel> model(ModelKind kind) const = 0;
  virtual bool raw_enabled() const = 0;
  virtual uint32_t raw_dim() const = 0;
  virtual uint32_t n_actions() const = 0;
};

// A batch sent to a node that does not take batches (a publisher): nothing
// was read, and the sender should try a worker.
class BatchesNotTaken : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Analyzer : public AnalyzerApi {
 public:
  // Binds `store` to this configuration, loads both models from it and
  // retries the quarantine with these keys and this shape: each original
  // batch's records that now open valid are applied (replays and crowds
  // below l refused again) in one commit that takes them out. Throws
  // StoreError. `store`, `metrics` and `log` must outlive this.
  Analyzer(AnalyzerSettings settings, const Codebook& codebook, KeyRing keys, ModelStore* store,
           Metrics* metrics, Logger* log);

  // Verifies an encoded batch (wire/batch_format.hpp) and applies it. Throws
  // StoreError (nothing changed), CentralDpExhausted (the central-DP horizon
  // is spent; nothing changed) or std::runtime_error on a signing failure
  // (nothing changed either).
  BatchOutcome receive_batch(const uint8_t* data, std::size_t len) override;
  BatchOutcome receive_batch(const std::vector<uint8_t>& body) {
    return receive_batch(body.data(), body.size());
  }
  RawOutcome apply_raw(const RawBatch& raw) override;

  // The latest signed model of `kind`, or nullptr before the first one and,
  // for the private model, while fewer than min_reports reports back it.
  // Lock-free: an immutable snapshot swapped in after each commit, so a
  // download never waits for, or holds up, a batch.
  std::shared_ptr<const SignedModel> model(ModelKind kind) const override;
  // False once a model signing or commit failed, until one succeeds.
  bool last_publish_ok() const { return publish_ok_.load(); }
  // A copy of the statistics behind it (tests, diagnostics).
  Statistics statistics(ModelKind kind) const;

  uint32_t dim() const { return features_.dim(); }
  uint32_t raw_dim() const override { return raw_dim_; }
  uint32_t n_actions() const override { return settings_.n_actions; }
  bool raw_enabled() const override { return settings_.raw_enabled; }
  // Null with central DP off.
  const CentralDp* central_dp() const { return dp_.get(); }
  uint64_t central_releases_left() const;

 private:
  struct ModelState {
    Statistics stats;
    std::shared_ptr<const SignedModel> signed_model;
    double released_count = 0.0;  // the reports the served model claims (noisy with central DP)
    std::shared_ptr<const SignedModel> served;  // what model() answers; atomic_load/atomic_store
  };

  ModelState& state(ModelKind kind) { return kind == ModelKind::raw_baseline ? raw_ : private_; }
  const ModelState& state(ModelKind kind) const {
    return kind == ModelKind::raw_baseline ? raw_ : private_;
  }
  // Signs `next`, commits it with `commit` and makes it current; the caller
  // holds mu_. Returns the new version.
  uint64_t publish(ModelKind kind, Statistics next, Commit commit);
  BatchOutcome apply_verified(const server::VerifiedBatch& verified);
  // For a batch id already applied: a duplicate (with its ack) or a
  // conflict. The caller holds mu_.
  BatchOutcome answer_known(const server::VerifiedBatch& verified, const AppliedBatch& known);
  std::vector<uint8_t> ack(const server::BatchId& id, const server::BatchDigest& digest,
                           uint64_t version, server::BatchAck counts) const;
  // Swaps in the snapshot model() serves; the caller holds mu_ (or constructs).
  void refresh_served(ModelKind kind);
  // `next` plus `reports`; their arms go to `touched`.
  void add_reports(const std::vector<ValidReport>& reports, Statistics* next,
                   std::vector<uint32_t>* touched);
  // The constructor's retry of the quarantine, one original batch at a time.
  void release_quarantine();
  // Applies what of one original batch's quarantined records now opens
  // valid; returns how many stay. The caller holds mu_.
  struct Released {
    uint64_t applied = 0, replayed = 0, below_threshold = 0;
  };
  uint64_t release_batch(const server::BatchId& id, Released* total);
  // Binds the store to settings_.central_dp (or to its absence) and makes dp_.
  void setup_central_dp();
  // Throws CentralDpExhausted when the next private release is past the
  // horizon; the caller holds mu_.
  void check_central_horizon(const std::string& batch_id);

  AnalyzerSettings settings_;
  FeatureMap features_;
  uint32_t raw_dim_;
  uint8_t codebook_fp_[kFingerprintBytes] = {};
  KeyRing keys_;
  ModelStore* store_;
  Metrics* metrics_;
  Logger* log_;

  mutable std::mutex mu_;  // guards the states and serialises store commits
  ModelState private_;
  ModelState raw_;
  std::unique_ptr<CentralDp> dp_;
  uint64_t quarantine_size_ = 0;  // guarded by mu_
  std::set<Epoch> retired_;       // read at start: retiring needs the store to itself
  std::atomic<bool> publish_ok_{true};
};

}  // namespace p2b::analyzer
