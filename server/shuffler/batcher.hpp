// Closes batches and delivers them. A batch closes every `batch_size`
// records or `interval`, whichever comes first; it is shuffled and
// thresholded in one spool transaction, then sent under its random id until
// the analyzer acknowledges it with 200. Records leave the spool only on
// that acknowledgement, and a batch that was assigned but never
// acknowledged (a crash, a down analyzer) is re-sent with the same id, which
// the analyzer deduplicates.
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
};

class Batcher {
 public:
  Batcher(Spool& spool, AnalyzerSink& sink, Metrics& metrics, BatchingPolicy policy);
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
  // Sends unacknowledged batches, oldest first, until one fails. True if
  // none is left.
  bool deliver_pending();

 private:
  void run();

  Spool& spool_;
  AnalyzerSink& sink_;
  Metrics& metrics_;
  BatchingPolicy policy_;

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  // Unbatched records, as far as the notifications tell; may briefly lag
  // or lead the spool, which only shifts a size trigger by a request.
  int64_t pending_ = 0;
  std::thread thread_;
};

}  // namespace p2b::shuffler
