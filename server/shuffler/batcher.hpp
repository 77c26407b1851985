// Closes batches and delivers them. A batch closes every `batch_size`
// records or `interval`, whichever comes first; it is shuffled and
// thresholded in one spool transaction, then signed with the shuffler's key
// and sent under its random id until the analyzer answers with a signed ack
// of that very batch (its id and digest, wire/batch_ack.hpp). Records leave
// the spool only on such an ack; a batch that was assigned but never
// acknowledged (a crash, a down analyzer, a missing or forged ack) is re-sent
// with the same id and the same bytes, which the analyzer deduplicates.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>

#include "shuffler/analyzer_sink.hpp"
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
  uint32_t partition = 0;  // written into every batch closed from now on
};

// What a batch is signed with and its ack verified against. Both pointers
// must outlive the batcher.
struct BatchKeys {
  const uint8_t* sign_sk = nullptr;             // the shuffler's Ed25519 secret key (64 bytes)
  const uint8_t* analyzer_verify_pk = nullptr;  // the pinned analyzer.sign.pk (32 bytes)
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
  // Stops after the step in progress; a delivery in flight runs to its end
  // or its timeout. Idempotent.
  void stop();

  // Called after new records were committed.
  void notify_stored(std::size_t n);

  // The steps of the thread, public so tests can drive them one at a time.
  // close_batch: shuffles and thresholds every unbatched record (up to the
  // batch format's limit) into a new batch.
  ClosedBatch close_batch();
  // Sends unacknowledged batches, oldest first, until one fails (no answer,
  // not 200, or no valid ack of it). True if none is left.
  bool deliver_pending();

 private:
  void run();

  Spool& spool_;
  AnalyzerSink& sink_;
  Metrics& metrics_;
  BatchingPolicy policy_;
  BatchKeys keys_;

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  // Unbatched records, as far as the notifications tell; may briefly lag
  // or lead the spool, which only shifts a size trigger by a request.
  int64_t pending_ = 0;
  std::thread thread_;
};

}  // namespace p2b::shuffler
