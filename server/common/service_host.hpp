// The host a service runs in (docs/operations.md, "A new protocol"): from
// the ServiceOptions every service parses alike, one BoundedServer with the
// HTTP limits, /healthz, /readyz (the checks added to readiness()),
// /metrics in the one style (service_metrics.hpp, plus the HTTP counters
// and what the service renders itself), the access log, the periodic work,
// and the stop-signal loop. A service adds its routes and its store:
//
//   int run(const Options& opt, common::Logger& log) {
//     ... open the store, build the service ...
//     common::ServiceHost host(opt, "p2b_x", log, is_bulk);
//     host.readiness().add("storage", ...);
//     host.serve_metrics([&](common::PrometheusText& out) { ... });
//     host.server().Post("/v1/x", ...);
//     host.every(std::chrono::seconds(60), "sweep", [&] { service.sweep(); });
//     return host.run([&](int port) { log.info("started", {{"port", port}}); });
//   }
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/bounded_server.hpp"
#include "common/http_limits.hpp"
#include "common/json_log.hpp"
#include "common/periodic_task.hpp"
#include "common/readiness.hpp"
#include "common/service_metrics.hpp"
#include "common/service_options.hpp"

namespace p2b::common {

class PrometheusText;

class ServiceHost {
 public:
  // Requests the access log leaves out unless --access-log all (the bulk of
  // the traffic); empty: none.
  using BulkRequests = std::function<bool(const httplib::Request&)>;

  // `metrics_prefix`: "p2b_relay", "p2b_vfl_ap", ... Bodies are capped at
  // options.max_body.
  ServiceHost(const ServiceOptions& options, std::string metrics_prefix, Logger& log,
              BulkRequests bulk = {});
  ServiceHost(const ServiceHost&) = delete;
  ServiceHost& operator=(const ServiceHost&) = delete;
  ~ServiceHost();

  BoundedServer& server() { return server_; }
  Readiness& readiness() { return readiness_; }
  HttpCounters& http_counters() { return counters_; }
  ServiceMetrics& metrics() { return metrics_; }

  // GET /metrics: what `own` appends, then <prefix>_http_refused_total and
  // <prefix>_http_connections, then the common families.
  void serve_metrics(std::function<void(PrometheusText&)> own);

  // Runs `work` every `period` from the time the service listens until it
  // stops; what it throws is logged as "periodic_failed" with `name`.
  // Returns the task (run_now() for an operator's route). Before run().
  PeriodicTask& every(std::chrono::duration<double> period, const std::string& name,
                      std::function<void()> work);

  // Binds --listen and prints the "listening on" line (exit 1 if it
  // cannot), calls `started(port)` (the service's "started" log line),
  // starts the periodic work, serves until a stop signal (shutdown.hpp),
  // stops the periodic work, calls `close` (the stores), and returns the
  // exit code of finish_stop.
  int run(const std::function<void(int port)>& started, const std::function<void()>& close = {});

 private:
  std::string listen_host_;
  int listen_port_;
  Logger& log_;
  HttpCounters counters_;
  ServiceMetrics metrics_;
  Readiness readiness_;
  BoundedServer server_;
  std::vector<std::unique_ptr<PeriodicTask>> tasks_;
};

}  // namespace p2b::common
