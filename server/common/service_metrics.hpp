// What every service's GET /metrics holds besides its own counters, in one
// style (docs/operations.md, "Metrics"):
//   <prefix>_http_request_duration_seconds  histogram by method and status
//   process_resident_memory_bytes, process_cpu_seconds_total,
//   process_open_fds, process_start_time_seconds
//   <prefix>_build_info{version="..."} 1
// attach() times every request of a BoundedServer and appends these
// families to its answer to GET /metrics, whichever handler rendered the
// service's own; so a service's /metrics route stays its own code.
#pragma once

#include <string>

#include "common/latency_histogram.hpp"

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

namespace p2b::common {

class BoundedServer;
class PrometheusText;

class ServiceMetrics {
 public:
  // `prefix`: the service's metric prefix, e.g. "p2b_relay".
  explicit ServiceMetrics(std::string prefix);

  const std::string& prefix() const { return prefix_; }
  LatencyHistogram& latency() { return latency_; }

  // Appends the families above.
  void render(PrometheusText& out) const;

  // Sets the server's request hooks (it and this must live as long as each
  // other). The answer to GET /metrics is finished after its handler ran,
  // so it is sent uncompressed: a scrape is a few kilobytes.
  void attach(BoundedServer& server);

  // The hooks' work, public for tests: true if `res` was a /metrics answer
  // that got the families appended.
  bool finish_answer(const httplib::Request& req, httplib::Response& res, double seconds);

 private:
  std::string prefix_;
  LatencyHistogram latency_;
};

// True for the request of a scrape: GET (or HEAD) /metrics.
bool is_metrics_request(const httplib::Request& req);

}  // namespace p2b::common
