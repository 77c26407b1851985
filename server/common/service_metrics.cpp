#include "common/service_metrics.hpp"

#include <httplib.h>

#include <utility>

#include "common/bounded_server.hpp"
#include "common/process_metrics.hpp"
#include "common/prometheus_text.hpp"
#include "common/version.hpp"

namespace p2b::common {

bool is_metrics_request(const httplib::Request& req) {
  return (req.method == "GET" || req.method == "HEAD") && req.path == "/metrics";
}

ServiceMetrics::ServiceMetrics(std::string prefix) : prefix_(std::move(prefix)) {}

void ServiceMetrics::render(PrometheusText& out) const {
  latency_.render(out, prefix_ + "_http_request_duration_seconds");
  render_process_metrics(out, read_process_sample());
  out.info(prefix_ + "_build_info", "The p2b version this process runs; always 1.", "version",
           version_string());
}

bool ServiceMetrics::finish_answer(const httplib::Request& req, httplib::Response& res,
                                   double seconds) {
  latency_.observe(req.method, res.status, seconds);
  if (!is_metrics_request(req) || res.status != 200) return false;
  PrometheusText common;
  render(common);
  res.body += common.text();
  // httplib set the length from the handler's body before this hook ran.
  res.headers.erase("Content-Length");
  res.set_header("Content-Length", std::to_string(res.body.size()));
  return true;
}

void ServiceMetrics::attach(BoundedServer& server) {
  BoundedServer::RequestHooks hooks;
  // httplib compresses before the answer hook runs; a body it compressed
  // could not be appended to.
  hooks.on_request = [](httplib::Request& req) {
    if (is_metrics_request(req)) req.headers.erase("Accept-Encoding");
  };
  hooks.on_answer = [this](const httplib::Request& req, httplib::Response& res, double seconds) {
    finish_answer(req, res, seconds);
  };
  server.set_request_hooks(std::move(hooks));
}

}  // namespace p2b::common
