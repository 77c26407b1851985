#include "http_api.hpp"

#include <httplib.h>

#include <exception>
#include <string>
#include <utility>

namespace p2b::analyzer {

namespace {

constexpr const char* kJson = "application/json";

void json_error(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content("{\"error\":\"" + json_escape(message) + "\"}", kJson);
}

// True if an If-None-Match header names `etag` (or is "*"). Weak tags
// compare equal too: the bundle for one version never changes.
bool etag_matches(const std::string& header, const std::string& etag) {
  std::size_t at = 0;
  while (at <= header.size()) {
    std::size_t end = header.find(',', at);
    if (end == std::string::npos) end = header.size();
    std::string tag = header.substr(at, end - at);
    const auto b = tag.find_first_not_of(" \t");
    const auto e = tag.find_last_not_of(" \t");
    tag = b == std::string::npos ? "" : tag.substr(b, e - b + 1);
    if (tag.rfind("W/", 0) == 0) tag = tag.substr(2);
    if (tag == etag || tag == "*") return true;
    at = end + 1;
  }
  return false;
}

void post_batch(const httplib::Request& req, httplib::Response& res, Analyzer* analyzer) {
  server::Batch batch;
  std::string err;
  if (!server::decode_batch(reinterpret_cast<const uint8_t*>(req.body.data()), req.body.size(),
                            &batch, &err)) {
    json_error(res, 400, err);
    return;
  }
  const BatchOutcome out = analyzer->apply_batch(batch);
  if (out.duplicate) {
    res.set_content("{\"applied\":0,\"duplicate\":true}", kJson);
    return;
  }
  res.set_content("{\"applied\":" + std::to_string(out.applied) +
                      ",\"rejected\":" + std::to_string(out.rejected) +
                      ",\"version\":" + std::to_string(out.version) + "}",
                  kJson);
}

void get_model(const httplib::Request& req, httplib::Response& res, const Analyzer* analyzer) {
  ModelKind kind = ModelKind::private_reports;
  if (req.has_param("kind")) {
    const std::string k = req.get_param_value("kind");
    if (k == "raw") {
      if (!analyzer->raw_enabled()) return json_error(res, 404, "raw baseline disabled");
      kind = ModelKind::raw_baseline;
    } else if (k != "private") {
      return json_error(res, 400, "unknown model kind");
    }
  }
  const std::shared_ptr<const SignedModel> model = analyzer->model(kind);
  if (!model) return json_error(res, 404, "no model yet");
  const std::string etag = "\"" + std::to_string(model->version) + "\"";
  res.set_header("ETag", etag);
  if (req.has_header("If-None-Match") &&
      etag_matches(req.get_header_value("If-None-Match"), etag)) {
    res.status = 304;
    return;
  }
  res.set_content(reinterpret_cast<const char*>(model->bundle.data()), model->bundle.size(),
                  "application/octet-stream");
}

void post_raw(const httplib::Request& req, httplib::Response& res, Analyzer* analyzer) {
  if (!analyzer->raw_enabled()) return json_error(res, 404, "raw baseline disabled");
  RawBatch raw;
  std::string err;
  if (!decode_raw(reinterpret_cast<const uint8_t*>(req.body.data()), req.body.size(),
                  analyzer->raw_dim(), analyzer->n_actions(), &raw, &err)) {
    return json_error(res, 400, err);
  }
  const RawOutcome out = analyzer->apply_raw(raw);
  res.set_content("{\"applied\":" + std::to_string(out.applied) +
                      ",\"version\":" + std::to_string(out.version) + "}",
                  kJson);
}

}  // namespace

std::size_t max_request_bytes() {
  return server::kBatchHeaderBytes + server::kMaxBatchRecords * kInnerBytes;
}

void install_routes(httplib::Server* server, Analyzer* analyzer, Metrics* metrics, Logger* log) {
  server->set_payload_max_length(max_request_bytes());
  // Headers and body go out in separate writes; without TCP_NODELAY, Nagle
  // and the peer's delayed ACK add ~40 ms to every answer.
  server->set_tcp_nodelay(true);
  server->Post("/v1/batches", [analyzer](const httplib::Request& req, httplib::Response& res) {
    post_batch(req, res, analyzer);
  });
  server->Get("/v1/model", [analyzer](const httplib::Request& req, httplib::Response& res) {
    get_model(req, res, analyzer);
  });
  server->Post("/v1/raw", [analyzer](const httplib::Request& req, httplib::Response& res) {
    post_raw(req, res, analyzer);
  });
  server->Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok", "text/plain");
  });
  server->Get("/metrics", [metrics](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics->prometheus_text(), "text/plain; version=0.0.4");
  });
  // A store or signing failure changed nothing, so the client may retry
  // (the shuffler does, with the same batch id).
  server->set_exception_handler(
      [log](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "unknown exception";
        try {
          std::rethrow_exception(std::move(ep));
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        log->error("request_failed", {{"method", req.method}, {"path", req.path}, {"error", what}});
        json_error(res, 500, "internal error; nothing was applied");
      });
  // Unrouted paths and httplib's own refusals (413, 400) get a JSON body too.
  server->set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        const char* why = res.status == 404   ? "not found"
                          : res.status == 413 ? "request body too large"
                                              : "request refused";
        json_error(res, res.status, why);
        return httplib::Server::HandlerResponse::Handled;
      }));
  server->set_logger([log](const httplib::Request& req, const httplib::Response& res) {
    log->info("http", {{"method", req.method},
                       {"path", req.path},
                       {"status", res.status},
                       {"bytes", static_cast<uint64_t>(res.body.size())}});
  });
}

}  // namespace p2b::analyzer
