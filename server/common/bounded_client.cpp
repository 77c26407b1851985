#include "common/bounded_client.hpp"

#include <utility>

namespace p2b::common {

ClientAnswer bounded_request(httplib::Client& client, const std::string& method,
                             const std::string& path, std::string body,
                             const std::string& content_type, std::size_t max_answer_bytes) {
  httplib::Request req;
  req.method = method;
  req.path = path;
  if (method == "POST") {
    req.set_header("Content-Type", content_type);
    req.body = std::move(body);
  }
  ClientAnswer answer;
  // Installing a receiver makes the client hand the body over chunk by
  // chunk instead of buffering it whole; refusing a chunk ends the read.
  req.content_receiver = [&](const char* data, std::size_t len, uint64_t, uint64_t) {
    if (answer.body.size() + len > max_answer_bytes) {
      answer.too_large = true;
      return false;
    }
    answer.body.append(data, len);
    return true;
  };
  httplib::Response res;
  httplib::Error error = httplib::Error::Success;
  if (!client.send(req, res, error) || answer.too_large) {
    answer.error = answer.too_large
                       ? "answer larger than " + std::to_string(max_answer_bytes) + " bytes"
                       : httplib::to_string(error);
    answer.body.clear();
    answer.status = -1;
    return answer;
  }
  answer.status = res.status;
  answer.headers = std::move(res.headers);
  return answer;
}

}  // namespace p2b::common
