// Closes batches and delivers them. A batch closes every `batch_size`
// records or `interval`, whichever comes first; it is shuffled and
// thresholded in one spool transaction, then signed with the shuffler's key
// (and its crowd thresholds, which the analyzer must share: a 409
// threshold_mismatch is a configuration error, failure_state.hpp)
// and sent under its random id until the analyzer answers with a signed ack
// of that very batch (its id and digest, wire/batch_ack.hpp). Records leave
// the spool only on such an ack; a batch that was assigned but never
// acknowledged (a crash, a down analyzer, a missing or forged ack) is re-sent
// with the same id and the same bytes, which the analyzer deduplicates.
//
// Work is bounded: a batch holds at most `batch_size` records, so a backlog
// leaves as several batches, closed and delivered one after another; a
// failing close or delivery waits an exponential, capped, jittered pause and
// is logged once per change of state (failure_state.hpp); stop() returns
// between batches and cuts a delivery in flight short.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "shuffler/analyzer_sink.hpp"
#include "shuffler/failure_state.hpp"
#include "shuffler/metrics.hpp"
#include "shuffler/shuffle.hpp"
#include "shuffler/spool.hpp"

namespace p2b::shuffler {

struct BatchingPolicy {
  std::size_t batch_size = 1000;
  std::chrono::milliseconds interval{10000};
  ThresholdPolicy threshold;
  std::chrono::milliseconds min_retry{200};
  std::chrono::milliseconds max_retry{5000};
  // The spool partition this batcher closes and delivers (its lease); the
  // number every batch carries.
  uint32_t partition = 0;
  // How long a lease outlives its last renewal: a batcher that stops renewing
  // (killed, paused) loses its partition to another after this.
  std::chrono::milliseconds lease_ttl{30000};
};

// What a batch is signed with and its ack verified against. Every pointer
// must outlive the batcher.
struct BatchKeys {
  const uint8_t* sign_sk = nullptr;             // the shuffler's Ed25519 secret key (64 bytes)
  const uint8_t* analyzer_verify_pk = nullptr;  // the pinned analyzer.sign.pk (32 bytes)
  // Earlier signing keys, newest first, kept through a rotation. A batch is
  // always sent signed by `sign_sk` first; only when the analyzer answers
  // 409 batch_conflict (it applied this id with other bytes: most likely the
  // same batch signed by an earlier key before a restart, its ack lost) is
  // it sent again signed by each of these, until one is acknowledged. The
  // analyzer's id-to-digest binding is untouched: only the exact bytes it
  // applied get the ack.
  std::vector<const uint8_t*> previous_sign_sks;
};

// What /readyz and the operator see of the batcher.
struct BatcherStatus {
  bool running = false;  // the background thread is alive
  FailureState::Snapshot closing;
  FailureState::Snapshot delivery;
  uint64_t unacknowledged_batches = 0;
  std::chrono::seconds oldest_unacknowledged_age{0};
};

class Batcher {
 public:
  Batcher(Spool& spool, AnalyzerSink& sink, Metrics& metrics, BatchingPolicy policy,
          BatchKeys keys);
  ~Batcher();
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // Starts the background thread, which first re-sends whatever earlier
  // runs left unacknowledged.
  void start();
  // Stops after the step in progress, between batches: a delivery in flight
  // is cut short (AnalyzerSink::cancel) and its batch stays in the spool for
  // the next start. Idempotent.
  void stop();

  // Called after new records were committed.
  void notify_stored(std::size_t n);

  // The steps of the thread, public so tests can drive them one at a time.
  // close_batch: shuffles and thresholds up to `batch_size` unbatched
  // records into a new batch.
  ClosedBatch close_batch();
  // Sends unacknowledged batches, oldest first, until one fails (no answer,
  // not 200, or no valid ack of it) or stop() is called. True if none is
  // left.
  bool deliver_pending();

  BatcherStatus status() const;
  uint32_t partition() const { return policy_.partition; }

 private:
  void run();
  bool stop_requested();
  // The partition's lease, renewed; nullopt while another batcher holds it.
  std::optional<Lease> hold_lease();
  // Records a failed delivery (not one cut short by stop()).
  void delivery_failed(const std::string& reason,
                       FailureState::Kind kind = FailureState::Kind::transient);
  // One POST of `batch` signed by `sign_sk`.
  struct Sent {
    int status = -1;
    std::string answer, detail;
    server::BatchDigest digest{};
  };
  Sent send_signed(const server::Batch& batch, const uint8_t* sign_sk);
  // send_signed with the current key and, on a batch_conflict, the earlier
  // ones (BatchKeys::previous_sign_sks). `by_previous` tells whether the
  // answer returned is to an earlier key's signature.
  Sent send_under_any_key(const server::Batch& batch, bool* by_previous);
  void note_backlog();
  // Reads the quarantine's size into the metrics; growth since the last
  // read was set aside by this process (a SQLite spool has one).
  void note_quarantine();
  // Sets pending_ from the store's count of the partition's unbatched
  // records; false if the store is not shared (the count is not kept).
  bool poll_shared_count();
  static constexpr std::chrono::milliseconds kSharedPoll{300};

  Spool& spool_;
  AnalyzerSink& sink_;
  Metrics& metrics_;
  BatchingPolicy policy_;
  BatchKeys keys_;
  const std::string holder_;  // random: this batcher's name in lease rows

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  // Unbatched records, as far as the notifications tell; may briefly lag
  // or lead the spool, which only shifts a size trigger by a request.
  int64_t pending_ = 0;
  std::thread thread_;
  std::atomic<bool> running_{false};
  bool lease_released_ = false;  // by stop()

  FailureState closing_;
  FailureState delivery_;
  std::chrono::milliseconds delivery_pause_{0};  // after the last failed delivery
  server::BatchId oldest_id_{};                  // the oldest batch seen waiting
  std::chrono::steady_clock::time_point oldest_since_{};
};

}  // namespace p2b::shuffler
