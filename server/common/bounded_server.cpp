#include "common/bounded_server.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>

#include "common/connection_gate.hpp"
#include "common/connection_stream.hpp"
#include "common/http_errors.hpp"
#include "common/request_framing.hpp"

namespace p2b::common {

namespace {

// What the handlers of the connection on this thread learned about it.
struct ConnectionState {
  const ConnectionStream* stream = nullptr;
  bool close = false;                             // the answer says Connection: close, and it is so
  std::chrono::steady_clock::time_point started;  // the request's first byte
};
thread_local ConnectionState* t_connection = nullptr;

class ConnectionScope {
 public:
  explicit ConnectionScope(ConnectionState* state) { t_connection = state; }
  ~ConnectionScope() { t_connection = nullptr; }
  ConnectionScope(const ConnectionScope&) = delete;
  ConnectionScope& operator=(const ConnectionScope&) = delete;
};

// How long a refused client may go on sending before it is cut off.
constexpr std::chrono::milliseconds kLinger{2000};

std::chrono::milliseconds millis(double seconds) {
  return std::chrono::milliseconds(static_cast<long long>(std::ceil(seconds * 1000)));
}

// An answer written without httplib, for a request httplib never sees.
std::string raw_answer(int status, const char* reason, const std::string& code,
                       const std::string& detail) {
  const std::string body = error_body(code, detail);
  return "HTTP/1.1 " + std::to_string(status) + " " + reason +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n" + body;
}

void close_socket(socket_t sock) {
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
}

}  // namespace

bool request_timed_out() {
  return t_connection != nullptr && t_connection->stream != nullptr &&
         t_connection->stream->deadline_passed();
}

BoundedServer::BoundedServer(const HttpLimits& limits, HttpCounters& counters)
    : limits_(limits), counters_(counters) {
  const std::size_t cap = limits.max_connections;
  new_task_queue = [cap] { return new ConnectionGate(cap); };
  set_keep_alive_timeout(static_cast<time_t>(std::ceil(limits.idle_seconds)));
  // SO_REUSEADDR lets a restart bind while old connections sit in TIME_WAIT;
  // httplib's default SO_REUSEPORT would let a live second instance bind too.
  set_socket_options([](socket_t sock) {
    const int yes = 1;
    (void)::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    const auto refusal = check_framing(req, payload_max_length_);
    if (!refusal) return HandlerResponse::Unhandled;
    counters_.refused(refusal->reason);
    res.status = refusal->status;
    if (!refusal->code.empty()) set_error(res, refusal->status, refusal->code, refusal->detail);
    if (t_connection != nullptr) t_connection->close = true;  // the body is still unread
    return HandlerResponse::Handled;
  });
  // An error may leave a body unread, or half read: never read on after one.
  set_post_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (hooks_.on_answer && t_connection != nullptr) {
      const std::chrono::duration<double> took =
          std::chrono::steady_clock::now() - t_connection->started;
      hooks_.on_answer(req, res, took.count());
    }
    if (t_connection == nullptr || (res.status < 400 && !t_connection->close)) return;
    t_connection->close = true;
    res.headers.erase("Keep-Alive");
    res.set_header("Connection", "close");
  });
}

int BoundedServer::bind(const std::string& host, int port, std::string* error) {
  errno = 0;
  int bound = port;
  if (port == 0) {
    bound = bind_to_any_port(host);
  } else if (!bind_to_port(host, port)) {
    bound = -1;
  }
  // listen() again on a listening socket only changes its backlog.
  if (bound > 0 && ::listen(svr_sock_, SOMAXCONN) == 0) return bound;
  if (error != nullptr) {
    const int e = errno;
    *error = e == EADDRINUSE ? "the address is in use (is another instance running?)"
             : e != 0        ? std::string(std::strerror(e))
                             : "the address cannot be bound";
  }
  return -1;
}

std::size_t BoundedServer::cut_connections() {
  const std::lock_guard<std::mutex> lock(open_mu_);
  for (const socket_t sock : open_) ::shutdown(sock, SHUT_RDWR);
  return open_.size();
}

bool BoundedServer::process_and_close_socket(socket_t sock) {
  if (ConnectionGate::shedding()) {
    counters_.refused(HttpRefusal::too_many_connections);
    ConnectionStream(sock, [] { return true; })
        .send_now(raw_answer(503, "Service Unavailable", "too_many_connections",
                             "the server has as many connections as it serves at once; retry"));
    close_socket(sock);
    return false;
  }
  counters_.opened();
  {
    const std::lock_guard<std::mutex> lock(open_mu_);
    open_.insert(sock);
  }
  serve_connection(sock);
  {
    const std::lock_guard<std::mutex> lock(open_mu_);
    open_.erase(sock);
  }
  counters_.closed();
  close_socket(sock);
  return true;
}

void BoundedServer::serve_connection(socket_t sock) {
  ConnectionStream stream(
      sock, [this] { return svr_sock_ == INVALID_SOCKET; }, millis(limits_.drain_seconds));
  ConnectionState state;
  state.stream = &stream;
  const ConnectionScope scope(&state);
  const auto idle = millis(limits_.idle_seconds);
  const auto request_time = millis(limits_.request_seconds);
  for (std::size_t served = 0; served < keep_alive_max_count_; ++served) {
    switch (stream.wait_for_request(idle)) {
      case ConnectionStream::Wait::ready:
        break;
      case ConnectionStream::Wait::timed_out:
        counters_.refused(HttpRefusal::idle_timeout);
        return;
      case ConnectionStream::Wait::closed:
      case ConnectionStream::Wait::stopping:
        return;
    }
    state.started = ConnectionStream::Clock::now();
    stream.set_deadline(state.started + request_time);
    switch (stream.read_head(limits_.max_head_bytes, limits_.max_headers)) {
      case ConnectionStream::Head::complete:
        break;
      case ConnectionStream::Head::timed_out:
        counters_.refused(HttpRefusal::request_timeout);
        stream.send_now(raw_answer(408, "Request Timeout", "request_timeout",
                                   "the request did not arrive within the time limit"));
        return;
      case ConnectionStream::Head::too_many_fields:
      case ConnectionStream::Head::too_large:
        counters_.refused(HttpRefusal::headers_too_large);
        stream.send_now(raw_answer(431, "Request Header Fields Too Large", "headers_too_large",
                                   "the request head has too many or too large header fields"));
        stream.linger(kLinger);
        return;
      case ConnectionStream::Head::closed:
        return;
    }
    state.close = false;
    bool connection_closed = false;
    const bool last = served + 1 == keep_alive_max_count_;
    const bool answered = process_request(stream, last, connection_closed, hooks_.on_request);
    if (stream.deadline_passed()) {
      counters_.refused(HttpRefusal::request_timeout);
      return;
    }
    if (answered && state.close) stream.linger(kLinger);
    if (!answered || connection_closed || state.close) return;
  }
}

}  // namespace p2b::common
