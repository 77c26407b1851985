// One p2b-analyzer process on PostgreSQL (docs/analyzer.md, "Roles"):
//   worker     verifies, opens and applies batches (PgAnalyzerStore), acks
//              them with its own ack key; any number of them
//   publisher  the only holder of the model signing key: every
//              --publish-seconds or --publish-reports new reports it sums
//              the shards and stores a signed model; a second one waits
//              (a hot standby) until the first's session ends
//   all        both in one process, acks signed with the model key
// Every node serves the latest stored model, refreshed from the database
// every `refresh` (the staleness bound). Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "analyzer.hpp"
#include "common/json_log.hpp"
#include "common/secret_keys.hpp"
#include "features.hpp"
#include "key_ring.hpp"
#include "metrics.hpp"
#include "pg_store.hpp"
#include "role.hpp"

namespace p2b::analyzer {

struct PgNodeSettings {
  Role role = Role::all;
  // mode, n_actions, lambda, min_reports, model_ttl, clock, shuffler_keys,
  // threshold, threshold_noise, max_quarantine and central_dp; no raw
  // baseline. With central DP on, workers clip each report (and add no
  // noise: they stay exactly-once sums) and the publisher releases the tree
  // mechanism's noisy statistics, publication t being tree step t
  // (pg_central_dp.hpp); every node must be started with the same choice.
  AnalyzerSettings analyzer;
  double publish_seconds = 10;   // publish at most this long after a new report
  uint64_t publish_reports = 0;  // or as soon as this many new reports (0: off)
  std::chrono::milliseconds refresh{500};
};

class PgNode : public AnalyzerApi {
 public:
  // `worker_keys`: the box keys and, as its signer, the ack key (worker,
  // all); `model_sk`: the model signing key (publisher, all). Binds the
  // store, opens the workers' epochs (StoreRefused for a retired key),
  // loads the latest model and starts the refresh and publisher threads.
  PgNode(PgNodeSettings settings, const Codebook& codebook, KeyRing worker_keys,
         common::SecureArray<uint8_t> model_sk, PgAnalyzerStore* store, Metrics* metrics,
         Logger* log);
  ~PgNode() override;
  PgNode(const PgNode&) = delete;
  PgNode& operator=(const PgNode&) = delete;

  BatchOutcome receive_batch(const uint8_t* data, std::size_t len) override;
  RawOutcome apply_raw(const RawBatch& raw) override;
  std::shared_ptr<const SignedModel> model(ModelKind kind) const override;
  bool raw_enabled() const override { return false; }
  uint32_t raw_dim() const override { return 0; }
  uint32_t n_actions() const override { return settings_.analyzer.n_actions; }

  uint32_t dim() const { return features_.dim(); }
  // The refresh reached the database within the last few intervals.
  bool database_ok() const;
  // This process holds the publisher lock.
  bool leading() const { return leading_.load(); }
  bool last_publish_ok() const { return publish_ok_.load(); }

 private:
  BatchOutcome apply_verified(const server::VerifiedBatch& verified);
  Statistics sums_of(const std::vector<ValidReport>& reports) const;
  // The signed bundle of private model `version` from its arrays; `dp`:
  // the central-DP settings its header states (null: none).
  SignedModel sign_model(uint64_t version, uint64_t created_unix, const std::vector<double>& a,
                         const std::vector<double>& b, const CentralDpConfig* dp) const;
  bool central_dp_on() const { return settings_.analyzer.central_dp.enabled(); }
  // A worker's refusal (CentralDpExhausted) once the latest publication
  // reached the horizon: no model could ever carry the batch.
  void check_central_horizon(const std::string& batch_id);
  BatchOutcome answer_known(const server::VerifiedBatch& verified, const AppliedBatch& known);
  // A worker's start: applies what of the quarantine opens valid now, one
  // original batch at a time (as Analyzer::release_quarantine on SQLite).
  void release_quarantine();
  void refresh();
  void refresh_loop();
  void publisher_loop();
  // Publishes if due; returns true when a model was stored.
  bool publish_if_due(std::chrono::steady_clock::time_point* last);
  // Sleeps up to `d`, false once stopping.
  bool pause(std::chrono::milliseconds d);

  PgNodeSettings settings_;
  FeatureMap features_;
  uint8_t codebook_fp_[kFingerprintBytes] = {};
  KeyRing worker_keys_;
  common::SecureArray<uint8_t> model_sk_;
  PgAnalyzerStore* store_;
  Metrics* metrics_;
  Logger* log_;

  mutable std::mutex retired_mu_;
  std::set<Epoch> retired_;
  std::shared_ptr<const StoredModel> latest_;  // atomic_load/atomic_store
  std::shared_ptr<const SignedModel> served_;  // null while withheld
  std::atomic<int64_t> last_refresh_ms_{0};
  std::atomic<bool> leading_{false};
  std::atomic<bool> publish_ok_{true};
  bool horizon_announced_ = false;  // the publisher thread's

  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread refresher_, publisher_;
};

}  // namespace p2b::analyzer
