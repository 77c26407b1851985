// The httplib::Server both services run: cpp-httplib's routing and handlers,
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
//  - after any error answer the connection is closed.
// Each refusal is counted in HttpCounters.
#pragma once

#include <httplib.h>

#include <string>

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
  int bind(const std::string& host, int port);

 private:
  bool process_and_close_socket(socket_t sock) override;
  void serve_connection(socket_t sock);

  HttpLimits limits_;
  HttpCounters& counters_;
};

// True while the error answer of a request whose read ran out of time is
// being prepared (httplib reports that as a 400); configure_server answers
// 408 then.
bool request_timed_out();

}  // namespace p2b::common
