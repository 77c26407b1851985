// Eigen (through global_link.hpp) comes before httplib, whose <resolv.h>
// defines a macro `_res` that Eigen uses as a parameter name.
#include "fclub/global_link.hpp"

#include <httplib.h>

#include <chrono>
#include <cstdint>
#include <ctime>
#include <memory>
#include <utility>

#include "common/bounded_client.hpp"

namespace p2b::fclub {

namespace {

int status_of(const common::ClientAnswer& a) {
  if (a.too_large) return kAnswerTooLarge;
  return a.status < 0 ? kNoAnswer : a.status;
}

}  // namespace

GlobalLink http_global_link(const std::string& url, double timeout_seconds) {
  // One connection for the poller thread, the only caller.
  auto client = std::make_shared<httplib::Client>(url);
  const auto secs = static_cast<time_t>(timeout_seconds);
  const auto usecs = static_cast<time_t>((timeout_seconds - static_cast<double>(secs)) * 1e6);
  client->set_connection_timeout(secs, usecs);
  client->set_read_timeout(secs, usecs);
  client->set_write_timeout(secs, usecs);
  // The whole call, answer included, is bounded by the same time as each
  // read: a global trickling its answer cannot hold the poller longer.
  const auto deadline = std::chrono::milliseconds(static_cast<int64_t>(timeout_seconds * 1000.0));
  GlobalLink link;
  link.post = [client, deadline](const std::string& path, const std::string& body,
                                 std::string* reply) {
    common::ClientCall call;
    call.method = "POST";
    call.path = path;
    call.body = body;
    call.content_type = "application/octet-stream";
    call.max_answer_bytes = kMaxJsonAnswerBytes;
    call.deadline = deadline;
    common::ClientAnswer a = common::bounded_request(*client, std::move(call));
    if (a.status >= 0) *reply = std::move(a.body);
    return status_of(a);
  };
  link.get = [client, deadline](const std::string& path, std::size_t max_reply,
                                std::string* reply) {
    common::ClientCall call;
    call.path = path;
    call.max_answer_bytes = max_reply;
    call.deadline = deadline;
    common::ClientAnswer a = common::bounded_request(*client, std::move(call));
    if (a.status >= 0) *reply = std::move(a.body);
    return status_of(a);
  };
  return link;
}

}  // namespace p2b::fclub
