#include "common/http_server.hpp"

#include <httplib.h>

#include <cstdio>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "common/bounded_server.hpp"
#include "common/http_errors.hpp"

namespace p2b::common {

void configure_server(httplib::Server& server, std::size_t max_body, Logger& log,
                      RefusalHandler refusal) {
  server.set_payload_max_length(max_body);
  // Headers and body go out in separate writes; without TCP_NODELAY, Nagle
  // and the peer's delayed ACK add ~40 ms to every answer.
  server.set_tcp_nodelay(true);
  server.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("alive", "text/plain");
  });
  server.set_error_handler(httplib::Server::HandlerWithResponse(
      [refusal = std::move(refusal)](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        if (res.status == 400 && request_timed_out()) {
          set_error(res, 408, "request_timeout",
                    "the request did not arrive within the time limit");
          return httplib::Server::HandlerResponse::Handled;
        }
        if (!refusal || !refusal(req, res)) {
          set_error(res, res.status, code_for_status(res.status),
                    "refused by the HTTP layer (status " + std::to_string(res.status) + ")");
        }
        return httplib::Server::HandlerResponse::Handled;
      }));
  // A store or signing failure changed nothing, so the client may retry.
  server.set_exception_handler(
      [&log](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "unknown exception";
        try {
          std::rethrow_exception(std::move(ep));
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        log.error("request_failed", {{"method", req.method}, {"path", req.path}, {"error", what}});
        set_error(res, 500, "internal", "internal error; nothing was changed, retry later");
      });
}

int bind_and_announce(BoundedServer& server, const std::string& host, int port, Logger& log) {
  std::string error;
  const int bound = server.bind(host, port, &error);
  if (bound <= 0) {
    log.error("listen_failed", {{"host", host}, {"port", port}, {"error", error}});
    return -1;
  }
  std::printf("listening on %s:%d\n", host.c_str(), bound);
  std::fflush(stdout);
  log.info("listening", {{"host", host}, {"port", bound}});
  return bound;
}

void serve_readiness(httplib::Server& server, const Readiness& readiness) {
  server.Get("/readyz", [&readiness](const httplib::Request&, httplib::Response& res) {
    const std::vector<NamedResult> results = readiness.run();
    const bool ready = Readiness::all_ok(results);
    nlohmann::ordered_json body;
    body["ready"] = ready;
    body["checks"] = nlohmann::ordered_json::array();
    for (const NamedResult& r : results) {
      body["checks"].push_back(
          {{"name", r.name}, {"ok", r.result.ok}, {"detail", r.result.detail}});
    }
    res.status = ready ? 200 : 503;
    res.set_content(body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace),
                    "application/json");
  });
}

void install_access_log(httplib::Server& server, Logger& log, AccessLog mode,
                        std::function<bool(const httplib::Request&)> bulk) {
  if (mode == AccessLog::off) return;
  server.set_logger([&log, mode, bulk = std::move(bulk)](const httplib::Request& req,
                                                         const httplib::Response& res) {
    if (mode == AccessLog::standard && bulk && bulk(req)) return;
    log.info("http", {{"method", req.method},
                      {"path", req.path},
                      {"status", res.status},
                      {"bytes", res.body.size()}});
  });
}

}  // namespace p2b::common
