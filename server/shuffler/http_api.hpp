// The shuffler's HTTP routes on a cpp-httplib server:
//   POST /v1/reports  -> ReportIntake (202 / 400 / 413 / 421 / 422 / 503)
//   GET  /healthz     -> 200 "alive"
//   GET  /readyz      -> the readiness checks (200 or 503)
//   GET  /metrics     -> Prometheus text
// Nothing about the client (address, headers, timing) reaches storage or
// the logs.
#pragma once

#include <cstddef>

#include "common/json_log.hpp"
#include "common/readiness.hpp"
#include "shuffler/intake.hpp"
#include "shuffler/metrics.hpp"
#include "shuffler/spool.hpp"

namespace httplib {
class Server;
}

namespace p2b::shuffler {

// Also caps request bodies at `max_body`, so httplib refuses a larger one
// from its Content-Length without buffering it. /readyz runs `readiness`
// (no /readyz without it). The access log's standard mode leaves report
// posts out: a line per post would put each device's arrival time in the
// log.
void install_routes(httplib::Server& server, ReportIntake& intake, Metrics& metrics, Spool& spool,
                    std::size_t max_body, const common::Readiness* readiness = nullptr,
                    common::AccessLog access_log = common::AccessLog::standard);

}  // namespace p2b::shuffler
