#include "shuffler/http_api.hpp"

#include <httplib.h>

#include <string>

#include "shuffler/json_log.hpp"

namespace p2b::shuffler {

namespace {

constexpr const char* kJson = "application/json";

}  // namespace

void install_routes(httplib::Server& server, ReportIntake& intake, Metrics& metrics, Spool& spool,
                    std::size_t max_body) {
  server.set_payload_max_length(max_body);
  // Headers and body go out in separate writes; without TCP_NODELAY, Nagle
  // and the peer's delayed ACK add ~40 ms to every answer.
  server.set_tcp_nodelay(true);

  server.Post("/v1/reports", [&intake](const httplib::Request& req, httplib::Response& res) {
    const IntakeReply reply = intake.handle(req.body);
    res.status = reply.status;
    res.set_content(reply.json, kJson);
  });

  server.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok", "text/plain");
  });

  server.Get("/metrics", [&metrics, &spool](const httplib::Request&, httplib::Response& res) {
    try {
      res.set_content(metrics.render(spool.depth()), "text/plain; version=0.0.4");
    } catch (const SpoolError& e) {
      log_event("error", "metrics_failed", {{"error", e.what()}});
      res.status = 503;
      res.set_content("{\"error\":\"spool_unavailable\"}", kJson);
    }
  });

  // httplib answers on its own, with an empty body, when it refuses a
  // request before any handler runs: an oversized body above all. Those
  // answers get the same JSON shape, and the 413 is counted like ours.
  const httplib::Server::HandlerWithResponse on_error = [&intake](const httplib::Request& req,
                                                                  httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    if (res.status == 413 && req.path == "/v1/reports") {
      res.set_content(intake.refuse_too_large().json, kJson);
    } else {
      res.set_content("{\"error\":\"http_" + std::to_string(res.status) + "\"}", kJson);
    }
    return httplib::Server::HandlerResponse::Handled;
  };
  server.set_error_handler(on_error);

  server.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, const std::exception_ptr&) {
        log_event("error", "request_failed");
        res.status = 500;
        res.set_content("{\"error\":\"internal\"}", kJson);
      });
}

}  // namespace p2b::shuffler
