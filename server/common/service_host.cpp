#include "common/service_host.hpp"

#include <httplib.h>

#include <utility>

#include "common/exit_codes.hpp"
#include "common/http_server.hpp"
#include "common/prometheus_text.hpp"
#include "common/shutdown.hpp"

namespace p2b::common {

ServiceHost::ServiceHost(const ServiceOptions& options, std::string metrics_prefix, Logger& log,
                         BulkRequests bulk)
    : listen_host_(options.listen_host),
      listen_port_(options.listen_port),
      log_(log),
      metrics_(std::move(metrics_prefix)),
      server_(options.http, counters_) {
  configure_server(server_, options.max_body, log);
  serve_readiness(server_, readiness_);
  install_access_log(server_, log, options.access_log, std::move(bulk));
  metrics_.attach(server_);
}

ServiceHost::~ServiceHost() {
  for (const auto& t : tasks_) t->stop();
}

void ServiceHost::serve_metrics(std::function<void(PrometheusText&)> own) {
  server_.Get("/metrics",
              [this, own = std::move(own)](const httplib::Request&, httplib::Response& res) {
                PrometheusText out;
                if (own) own(out);
                counters_.render(out, metrics_.prefix());
                res.set_content(out.text(), "text/plain; version=0.0.4");
              });
}

PeriodicTask& ServiceHost::every(std::chrono::duration<double> period, const std::string& name,
                                 std::function<void()> work) {
  const auto steady = std::chrono::duration_cast<PeriodicTask::Period>(period);
  tasks_.push_back(std::make_unique<PeriodicTask>(
      steady, std::move(work), [this, name](const std::string& what) {
        log_.error("periodic_failed", {{"task", name}, {"error", what}});
      }));
  return *tasks_.back();
}

int ServiceHost::run(const std::function<void(int port)>& started,
                     const std::function<void()>& close) {
  const int port = bind_and_announce(server_, listen_host_, listen_port_, log_);
  if (port < 0) return kExitFailure;
  if (started) started(port);
  for (const auto& t : tasks_) t->start();
  const StopOutcome outcome = serve_until_stopped(server_, log_);
  for (const auto& t : tasks_) t->stop();
  if (close) close();
  return finish_stop(outcome, log_);
}

}  // namespace p2b::common
