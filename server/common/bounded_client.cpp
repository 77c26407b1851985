#include "common/bounded_client.hpp"

#include <utility>

namespace p2b::common {

ClientAnswer bounded_request(httplib::Client& client, ClientCall call) {
  using Clock = std::chrono::steady_clock;
  const bool timed = call.deadline.count() > 0;
  const Clock::time_point end = Clock::now() + call.deadline;
  httplib::Request req;
  req.method = call.method;
  req.path = call.path;
  req.headers = std::move(call.headers);
  if (call.method == "POST") {
    req.set_header("Content-Type", call.content_type);
    req.body = std::move(call.body);
  }
  ClientAnswer answer;
  const auto late = [&] {
    if (timed && Clock::now() > end) answer.deadline_passed = true;
    return answer.deadline_passed;
  };
  req.response_handler = [&](const httplib::Response&) { return !late(); };
  // Installing a receiver makes the client hand the body over chunk by
  // chunk instead of buffering it whole; refusing a chunk ends the read.
  req.content_receiver = [&](const char* data, std::size_t len, uint64_t, uint64_t) {
    if (late()) return false;
    if (answer.body.size() + len > call.max_answer_bytes) {
      answer.too_large = true;
      return false;
    }
    answer.body.append(data, len);
    return true;
  };
  httplib::Response res;
  httplib::Error error = httplib::Error::Success;
  const bool sent = client.send(req, res, error);
  if (!sent || answer.too_large || answer.deadline_passed) {
    if (answer.too_large) {
      answer.error = "answer larger than " + std::to_string(call.max_answer_bytes) + " bytes";
    } else if (answer.deadline_passed) {
      answer.error = "answer slower than " + std::to_string(call.deadline.count()) + " ms";
    } else {
      answer.error = httplib::to_string(error);
    }
    answer.body.clear();
    answer.status = -1;
    return answer;
  }
  answer.status = res.status;
  answer.headers = std::move(res.headers);
  return answer;
}

}  // namespace p2b::common
