#include <httplib.h>

#include <atomic>
#include <cstdint>
#include <regex>
#include <stdexcept>
#include <string>
#include <utility>

#include "shuffler/analyzer_sink.hpp"

namespace p2b::shuffler {

namespace {

const std::regex& url_pattern() {
  static const std::regex re(R"(^(https?://[^/?#]+)(/[^?#]*)?$)");
  return re;
}

constexpr std::size_t kMaxAnswerBytes = 4096;

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
    httplib::Request req;
    req.method = "POST";
    req.path = path_;
    req.set_header("Content-Type", "application/octet-stream");
    req.body.assign(reinterpret_cast<const char*>(encoded_batch.data()), encoded_batch.size());
    // The answer is read at most kMaxAnswerBytes at a time into a bounded
    // buffer: an analyzer (or anyone between) answering with a flood cannot
    // grow the shuffler's memory. An answer that large is not an ack.
    std::string answer;
    bool too_large = false;
    req.content_receiver = [&](const char* data, std::size_t len, uint64_t, uint64_t) {
      if (answer.size() + len > kMaxAnswerBytes) {
        too_large = true;
        return false;
      }
      answer.append(data, len);
      return true;
    };
    httplib::Response res;
    httplib::Error error = httplib::Error::Success;
    if (!client_.send(req, res, error)) {
      *detail = too_large ? "answer larger than " + std::to_string(kMaxAnswerBytes) + " bytes"
                          : httplib::to_string(error);
      return -1;
    }
    detail->clear();
    *body = std::move(answer);
    return res.status;
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
