// The analyzer's HTTP contract (docs/analyzer.md), on cpp-httplib:
//   POST /v1/batches   verify a signed shuffler batch and apply it once per
//                      batch id; 200 carries a signed ack
//   GET  /v1/model     the latest signed bundle (?kind=raw: the raw baseline)
//   POST /v1/raw       the non-private baseline, only when enabled
//   GET  /healthz, GET /readyz, GET /metrics
#pragma once

#include <cstddef>

#include "common/json_log.hpp"
#include "common/readiness.hpp"

#include "analyzer.hpp"
#include "metrics.hpp"

namespace httplib {
class Server;
}

namespace p2b::analyzer {

// The largest body accepted: a batch of kMaxBatchRecords records.
std::size_t max_request_bytes();

// Registers every route and the error, exception and access-log handlers,
// and caps request bodies at `max_body`. /readyz runs `readiness` (no
// /readyz without it). `access_log` standard leaves model downloads out.
// The objects must outlive the server.
void install_routes(httplib::Server* server, Analyzer* analyzer, Metrics* metrics, Logger* log,
                    std::size_t max_body = max_request_bytes(),
                    const common::Readiness* readiness = nullptr,
                    common::AccessLog access_log = common::AccessLog::standard);

}  // namespace p2b::analyzer
