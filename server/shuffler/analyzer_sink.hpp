// Where closed batches go. An interface so that the batcher can be tested
// without a network, and so that delivery stays separate from batching.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace p2b::shuffler {

class AnalyzerSink {
 public:
  virtual ~AnalyzerSink() = default;
  // Delivers one encoded batch. Returns the HTTP status and puts the answer's
  // body in `body`, or returns -1 if no answer came; `detail` then says why.
  // A 200 is not yet an acknowledgement: the batcher checks the signed ack
  // in the body (wire/batch_ack.hpp).
  virtual int deliver(const std::vector<uint8_t>& encoded_batch, std::string* body,
                      std::string* detail) = 0;
  // For shutdown, from another thread: cuts a delivery in flight short (it
  // returns -1), and every later one fails at once.
  virtual void cancel() {}
};

// POSTs to <base_url>/v1/batches. Throws std::invalid_argument for a URL
// that is not http(s)://host[:port][/prefix].
std::unique_ptr<AnalyzerSink> make_http_sink(const std::string& base_url);

// True if make_http_sink would accept `base_url`.
bool valid_analyzer_url(const std::string& base_url);

}  // namespace p2b::shuffler
