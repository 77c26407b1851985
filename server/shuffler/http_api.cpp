#include "shuffler/http_api.hpp"

#include <httplib.h>

#include <optional>
#include <string>

#include "common/http_errors.hpp"
#include "common/http_server.hpp"
#include "common/json_log.hpp"

namespace p2b::shuffler {

void install_routes(httplib::Server& server, ReportIntake& intake, Metrics& metrics, Spool& spool,
                    std::size_t max_body, const common::Readiness* readiness,
                    common::AccessLog access_log) {
  common::Logger& log = common::service_log();
  // httplib refuses an oversized body on its own, before any handler runs;
  // that 413 is counted and answered like ours.
  common::configure_server(server, max_body, log,
                           [&intake](const httplib::Request& req, httplib::Response& res) {
                             if (res.status != 413 || req.path != "/v1/reports") return false;
                             res.set_content(intake.refuse_too_large().json, "application/json");
                             return true;
                           });
  if (readiness != nullptr) common::serve_readiness(server, *readiness);
  common::install_access_log(server, log, access_log, [](const httplib::Request& req) {
    return req.method == "POST" && req.path == "/v1/reports";
  });

  server.Post("/v1/reports", [&intake](const httplib::Request& req, httplib::Response& res) {
    const IntakeReply reply = intake.handle(req.body);
    res.status = reply.status;
    res.set_content(reply.json, "application/json");
  });

  server.Get("/metrics", [&metrics, &spool, &log](const httplib::Request&, httplib::Response& res) {
    // A failed spool must still show in /metrics, so its depth is optional.
    std::optional<std::size_t> depth;
    try {
      depth = spool.depth();
    } catch (const SpoolError& e) {
      // A failed store was logged once, when it failed.
      const common::StoreHealth* health = spool.health();
      if (health == nullptr || !health->failed())
        log.error("metrics_failed", {{"error", e.what()}});
    }
    res.set_content(metrics.render(depth, spool.health()), "text/plain; version=0.0.4");
  });
}

}  // namespace p2b::shuffler
