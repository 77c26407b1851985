// The cpp-httplib setup every service shares (the shuffler and the analyzer
// call it directly, the others through service_host.hpp): limits, error
// answers in the shape of http_errors.hpp, and the startup line scripts read
// the port from.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "common/json_log.hpp"
#include "common/readiness.hpp"

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

// Serves GET /healthz ("alive": the process answers, nothing more), caps request bodies at
// `max_body` (a larger Content-Length is refused before the body is read), sets TCP_NODELAY, gives
// the HTTP layer's own refusals the JSON error body (408 for a request that ran out of time on a
// BoundedServer), and answers an exception with 500 {"error":"internal"} after logging
// "request_failed". The connection limits are BoundedServer's (bounded_server.hpp).
void configure_server(httplib::Server& server, std::size_t max_body, Logger& log,
                      RefusalHandler refusal = {});

// Binds HOST:PORT (port 0: a free one) and prints "listening on HOST:PORT"
// with the real port as the first line on stdout, flushed; logs
// "listening". Returns the port, or -1 after logging "listen_failed".
int bind_and_announce(BoundedServer& server, const std::string& host, int port, Logger& log);

// Serves GET /readyz: runs every check of `readiness` (which must outlive
// the server) and answers 200 if all pass, else 503, with the JSON body
// {"ready":bool,"checks":[{"name":..,"ok":bool,"detail":..},..]}.
void serve_readiness(httplib::Server& server, const Readiness& readiness);

// The access log: an "http" info line (method, path, status, bytes; never
// the client's address) per request. `bulk` names the requests `standard`
// leaves out (model downloads at the analyzer, report posts at the
// shuffler); `off` logs none.
void install_access_log(httplib::Server& server, Logger& log, AccessLog mode,
                        std::function<bool(const httplib::Request&)> bulk);

}  // namespace p2b::common
