// The cpp-httplib setup both services share: limits, error answers in the
// shape of http_errors.hpp, and the startup line scripts read the port from.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "common/json_log.hpp"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace p2b::common {

class BoundedServer;

// Lets a service answer one of httplib's own refusals itself (the shuffler
// counts its 413s); returns true if it set the body.
using RefusalHandler = std::function<bool(const httplib::Request&, httplib::Response&)>;

// Serves GET /healthz ("ok"), caps request bodies at `max_body` (a larger
// Content-Length is refused before the body is read), sets TCP_NODELAY,
// gives the HTTP layer's own refusals the JSON error body (408 for a
// request that ran out of time on a BoundedServer), and answers an
// exception with 500 {"error":"internal"} after logging "request_failed".
// The connection limits are BoundedServer's (bounded_server.hpp).
void configure_server(httplib::Server& server, std::size_t max_body, Logger& log,
                      RefusalHandler refusal = {});

// Binds HOST:PORT (port 0: a free one) and prints "listening on HOST:PORT"
// with the real port as the first line on stdout, flushed; logs
// "listening". Returns the port, or -1 after logging "listen_failed".
int bind_and_announce(BoundedServer& server, const std::string& host, int port, Logger& log);

}  // namespace p2b::common
