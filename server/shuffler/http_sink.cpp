#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <regex>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/bounded_client.hpp"
#include "shuffler/analyzer_sink.hpp"

namespace p2b::shuffler {

namespace {

const std::regex& url_pattern() {
  static const std::regex re(R"(^(https?://[^/?#]+)(/[^?#]*)?$)");
  return re;
}

constexpr std::size_t kMaxAnswerBytes = 4096;
// A whole delivery, answer included. The read timeout (10 s of silence)
// already bounds an analyzer that is slow to apply a batch; this bounds one
// that trickles its answer a byte at a time.
constexpr std::chrono::milliseconds kDeliveryDeadline{60000};

class HttpSink final : public AnalyzerSink {
 public:
  HttpSink(const std::string& origin, std::string path) : client_(origin), path_(std::move(path)) {
    // Bounded, so a hung analyzer delays the next retry and shutdown by
    // seconds, not forever.
    client_.set_connection_timeout(3, 0);
    client_.set_tcp_nodelay(true);
    client_.set_read_timeout(10, 0);
    client_.set_write_timeout(10, 0);
  }

  int deliver(const std::vector<uint8_t>& encoded_batch, std::string* body,
              std::string* detail) override {
    if (cancelled_) {
      *detail = "shutting down";
      return -1;
    }
    // An answer larger than kMaxAnswerBytes is not an ack: it is dropped
    // unread, so a flood cannot grow the shuffler's memory.
    common::ClientCall call;
    call.method = "POST";
    call.path = path_;
    call.body.assign(reinterpret_cast<const char*>(encoded_batch.data()), encoded_batch.size());
    call.content_type = "application/octet-stream";
    call.max_answer_bytes = kMaxAnswerBytes;
    call.deadline = kDeliveryDeadline;
    common::ClientAnswer answer = common::bounded_request(client_, std::move(call));
    if (answer.status < 0) {
      *detail = answer.error;
      return -1;
    }
    detail->clear();
    *body = std::move(answer.body);
    return answer.status;
  }

  void cancel() override {
    cancelled_ = true;
    client_.stop();  // shuts the socket of a request in flight; thread-safe
  }

 private:
  std::atomic<bool> cancelled_{false};
  httplib::Client client_;
  std::string path_;
};

}  // namespace

bool valid_analyzer_url(const std::string& base_url) {
  return std::regex_match(base_url, url_pattern());
}

std::unique_ptr<AnalyzerSink> make_http_sink(const std::string& base_url) {
  std::smatch m;
  if (!std::regex_match(base_url, m, url_pattern())) {
    throw std::invalid_argument("not an http(s) URL: " + base_url);
  }
  std::string prefix = m[2].str();
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  return std::make_unique<HttpSink>(m[1].str(), prefix + "/v1/batches");
}

}  // namespace p2b::shuffler
