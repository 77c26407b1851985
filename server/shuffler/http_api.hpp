// The shuffler's HTTP routes on a cpp-httplib server:
//   POST /v1/reports  -> ReportIntake (202 / 400 / 413 / 421 / 422 / 503)
//   GET  /healthz     -> 200 "ok"
//   GET  /metrics     -> Prometheus text
// Nothing about the client (address, headers, timing) reaches storage or
// the logs.
#pragma once

#include <cstddef>

#include "shuffler/intake.hpp"
#include "shuffler/metrics.hpp"
#include "shuffler/spool.hpp"

namespace httplib {
class Server;
}

namespace p2b::shuffler {

// Also caps request bodies at `max_body`, so httplib refuses a larger one
// from its Content-Length without buffering it.
void install_routes(httplib::Server& server, ReportIntake& intake, Metrics& metrics, Spool& spool,
                    std::size_t max_body);

}  // namespace p2b::shuffler
