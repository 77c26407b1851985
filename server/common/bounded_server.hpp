// The httplib::Server every service runs: cpp-httplib's routing and handlers,
// with its connection handling replaced so that HttpLimits hold
// (docs/operations.md, "HTTP limits"):
//  - each connection has its own thread, up to max_connections; one more is
//    answered 503 too_many_connections and closed on the accepting thread;
//  - a connection with no request for idle_seconds is closed;
//  - a request must arrive whole, head and body, within request_seconds
//    (408 request_timeout if it gets that far, else the connection closes);
//  - the head is read and measured before httplib parses it (431);
//  - request_framing.hpp's checks run before the body is read, so nothing
//    is decompressed or de-chunked (411, 413, 415, 400);
//  - after any error answer the connection is closed;
//  - the port is bound with SO_REUSEADDR only: httplib's SO_REUSEPORT let a
//    second instance share the port and split the traffic;
//  - on a stop, idle connections close at once, and requests in flight get
//    drain_seconds; then cut_connections() shuts their sockets down.
// Each refusal is counted in HttpCounters.
#pragma once

#include <httplib.h>

#include <cstddef>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "common/http_limits.hpp"

namespace p2b::common {

class BoundedServer : public httplib::Server {
 public:
  // `counters` must outlive the server.
  BoundedServer(const HttpLimits& limits, HttpCounters& counters);

  const HttpLimits& limits() const { return limits_; }

  // Binds HOST:PORT (port 0: a free one) and returns the port, or -1.
  // httplib listens with a backlog of 5, so a burst of connections saw
  // SYNs dropped and 1 s retransmits; this widens it to SOMAXCONN.
  // On failure `error` (if given) says why, from errno.
  int bind(const std::string& host, int port, std::string* error = nullptr);

  // What a service hooks into every request httplib parses (service_metrics.hpp
  // times them this way): `on_request` before it is routed, `on_answer` once
  // its answer is complete but not yet written, with the seconds since its
  // first byte arrived. The refusals this class writes itself (408 on the
  // head, 431, 503) reach neither; HttpCounters counts those. Set before
  // listening.
  struct RequestHooks {
    std::function<void(httplib::Request&)> on_request;
    std::function<void(const httplib::Request&, httplib::Response&, double seconds)> on_answer;
  };
  void set_request_hooks(RequestHooks hooks) { hooks_ = std::move(hooks); }

  // Shuts down the socket of every connection still open (once the drain
  // is over), so that no read or write on them can wait any longer.
  // Returns how many it cut.
  std::size_t cut_connections();

 private:
  bool process_and_close_socket(socket_t sock) override;
  void serve_connection(socket_t sock);

  HttpLimits limits_;
  HttpCounters& counters_;
  RequestHooks hooks_;
  std::mutex open_mu_;  // held while a socket is cut, so none is closed under it
  std::set<socket_t> open_;
};

// True while the error answer of a request whose read ran out of time is
// being prepared (httplib reports that as a 400); configure_server answers
// 408 then.
bool request_timed_out();

}  // namespace p2b::common
