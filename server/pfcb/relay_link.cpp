#include "pfcb/relay_link.hpp"

#include <httplib.h>

#include <chrono>
#include <cstdint>
#include <utility>

#include "common/bounded_client.hpp"
#include "pfcb/relay_service.hpp"

namespace p2b::pfcb {

namespace {
// A POST's answer is the relay's short JSON acknowledgement or error.
constexpr std::size_t kMaxAckBytes = 4096;
}  // namespace

RelayLink http_relay_link(const std::string& host, int port, double timeout_seconds) {
  const auto secs = static_cast<time_t>(timeout_seconds);
  const auto usecs = static_cast<time_t>((timeout_seconds - static_cast<double>(secs)) * 1e6);
  // The whole call, answer included, is bounded by the same time as each
  // read: a relay trickling its answer cannot hold the agent longer.
  const auto deadline = std::chrono::milliseconds(static_cast<int64_t>(timeout_seconds * 1000.0));
  RelayLink link;
  link.post = [=](const std::string& path, const std::string& body, std::string* reply) {
    httplib::Client c(host, port);
    c.set_connection_timeout(secs, usecs);
    c.set_read_timeout(secs, usecs);
    c.set_write_timeout(secs, usecs);
    common::ClientCall call;
    call.method = "POST";
    call.path = path;
    call.body = body;
    call.content_type = "application/octet-stream";
    call.max_answer_bytes = kMaxAckBytes;
    call.deadline = deadline;
    common::ClientAnswer r = common::bounded_request(c, std::move(call));
    if (r.status >= 0 && reply != nullptr) *reply = std::move(r.body);
    return r.status;
  };
  link.get = [=](const std::string& path, const RelayLink::Headers& headers, std::size_t max_reply,
                 std::string* reply, std::string* cursor) {
    httplib::Client c(host, port);
    c.set_connection_timeout(secs, usecs);
    c.set_read_timeout(secs, usecs);
    common::ClientCall call;
    call.path = path;
    call.headers = httplib::Headers(headers.begin(), headers.end());
    call.max_answer_bytes = max_reply;
    call.deadline = deadline;
    common::ClientAnswer r = common::bounded_request(c, std::move(call));
    if (r.status < 0) return -1;
    if (reply != nullptr) *reply = std::move(r.body);
    if (cursor != nullptr) {
      const auto it = r.headers.find(kCursorHeader);
      *cursor = it == r.headers.end() ? std::string() : it->second;
    }
    return r.status;
  };
  return link;
}

// ---- outbox ------------------------------------------------------------------

void Outbox::push(std::vector<uint8_t> posting, uint32_t release) {
  queue_.push_back(Item{std::move(posting), release});
}

std::size_t Outbox::flush(const RelayLink& link, common::Logger* log) {
  std::size_t left = 0;
  while (!queue_.empty()) {
    const Item& item = queue_.front();
    std::string reply;
    const int status =
        link.post("/v1/pfcb/postings", std::string(item.bytes.begin(), item.bytes.end()), &reply);
    if (status < 0 || status >= 500) {
      ++counts_.send_failures;  // the relay is away or failing: keep it, try later
      return left;
    }
    if (status == 200) {
      ++counts_.acked;
    } else if (status == 409) {
      ++counts_.already_stored;
    } else {
      ++counts_.refused;
      if (log != nullptr) {
        log->warn("posting_refused_by_relay",
                  {{"status", status}, {"release", item.release}, {"bytes", item.bytes.size()}});
      }
    }
    if ((status == 200 || status == 409) && on_delivered) on_delivered(item.release, status);
    queue_.pop_front();
    ++left;
  }
  return left;
}

}  // namespace p2b::pfcb
