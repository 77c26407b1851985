// The analyzer's HTTP contract (docs/analyzer.md), on cpp-httplib:
//   POST /v1/batches   verify a signed shuffler batch and apply it once per
//                      batch id; 200 carries a signed ack
//   GET  /v1/model     the latest signed bundle (?kind=raw: the raw baseline)
//   POST /v1/raw       the non-private baseline, only when enabled
//   GET  /v1/keys      the signed shuffler-key list (--key-list), 404 without one
//   GET  /healthz, GET /readyz, GET /metrics
#pragma once

#include <cstddef>

#include "common/json_log.hpp"
#include "common/readiness.hpp"

#include "analyzer.hpp"
#include "key_list_file.hpp"
#include "metrics.hpp"

namespace httplib {
class Server;
}

namespace p2b::analyzer {

// The default --max-batch-records: 64 times the shuffler's default
// --batch-size (1000), so batches fit with room, while the memory a batch
// costs stays bounded (docs/benchmarks.md).
constexpr std::size_t kDefaultMaxBatchRecords = 65536;

// The size of a batch of `records` records: the default --max-body for a
// --max-batch-records.
std::size_t batch_request_bytes(std::size_t records);

// Registers every route and the error, exception and access-log handlers,
// and caps request bodies at `max_body`. A batch that declares more than
// `max_batch_records` records (or a body over `max_body` to /v1/batches)
// gets 413 batch_too_large before anything is decrypted. /readyz runs
// `readiness` (no /readyz without it). A node that takes no batches (a
// publisher) answers /v1/batches 503 not_a_worker. `access_log` standard leaves model
// downloads out. The objects must outlive the server.
void install_routes(httplib::Server* server, AnalyzerApi* analyzer, Metrics* metrics, Logger* log,
                    std::size_t max_body = batch_request_bytes(kDefaultMaxBatchRecords),
                    std::size_t max_batch_records = kDefaultMaxBatchRecords,
                    const common::Readiness* readiness = nullptr,
                    common::AccessLog access_log = common::AccessLog::standard);

// GET /v1/keys: `list` (which must outlive the server) with its ETag and
// 304 on a matching If-None-Match; without a list (null), 404 no_key_list.
void serve_key_list(httplib::Server* server, const ServedKeyList* list);

}  // namespace p2b::analyzer
