#include "http_api.hpp"

#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>

#include "common/http_errors.hpp"
#include "common/http_server.hpp"

namespace p2b::analyzer {

namespace {

using common::set_error;

void json_reply(httplib::Response& res, const nlohmann::ordered_json& body) {
  res.set_content(body.dump(), "application/json");
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

void refuse_too_large(httplib::Response& res, Metrics* metrics, Logger* log,
                      const std::string& what, std::size_t max_records) {
  metrics->batch_refused(BatchRefusal::too_large);
  log->warn("batch_refused", {{"reason", "too_large"}, {"batch", what}});
  set_error(res, 413, "batch_too_large",
            what + "; this analyzer takes at most " + std::to_string(max_records) +
                " records a batch (--max-batch-records): the shuffler's --batch-size must not "
                "exceed it");
}

void post_batch(const httplib::Request& req, httplib::Response& res, AnalyzerApi* analyzer,
                Metrics* metrics, Logger* log, std::size_t max_records) {
  // The header's count alone refuses a batch over the limit: nothing is
  // decoded, verified or decrypted for it.
  if (const uint32_t n = server::declared_record_count(
          reinterpret_cast<const uint8_t*>(req.body.data()), req.body.size());
      n > max_records) {
    return refuse_too_large(res, metrics, log, "the batch holds " + std::to_string(n) + " records",
                            max_records);
  }
  BatchOutcome out;
  try {
    out =
        analyzer->receive_batch(reinterpret_cast<const uint8_t*>(req.body.data()), req.body.size());
  } catch (const CentralDpExhausted& e) {
    // Not a fault to retry soon: nothing more can be released within the
    // stated epsilon until an operator acts. The shuffler keeps the batch.
    return set_error(res, 503, "privacy_budget_exhausted", e.what());
  } catch (const BatchesNotTaken& e) {
    // The sender keeps the batch and tries again (another node, later).
    return set_error(res, 503, "not_a_worker", e.what());
  }
  switch (out.result) {
    case BatchResult::malformed:
      return set_error(res, 400, "bad_batch", out.error);
    case BatchResult::unknown_signer:
      return set_error(res, 401, "unknown_signer", out.error);
    case BatchResult::bad_signature:
      return set_error(res, 403, "bad_signature", out.error);
    case BatchResult::conflict:
      return set_error(res, 409, "batch_conflict", out.error);
    case BatchResult::threshold_mismatch:
      // A configuration error, not a passing fault: the shuffler reports
      // it as one (not ready) and keeps the batch until the settings agree.
      return set_error(res, 409, "threshold_mismatch", out.error);
    case BatchResult::quarantine_full:
      // Insufficient Storage: nothing was applied, the shuffler keeps the
      // batch and retries; an operator has to act on the quarantine.
      return set_error(res, 507, "quarantine_full", out.error);
    case BatchResult::applied:
    case BatchResult::duplicate:
      break;
  }
  const bool duplicate = out.result == BatchResult::duplicate;
  nlohmann::ordered_json body;
  body["applied"] = duplicate ? 0 : out.applied;
  if (duplicate) {
    body["duplicate"] = true;
  } else {
    body["quarantined"] = out.quarantined;
    body["refused"] = out.rejected - out.quarantined;
  }
  body["version"] = out.version;
  body["ack"] = server::hex_of(out.ack.data(), out.ack.size());
  json_reply(res, body);
}

void get_model(const httplib::Request& req, httplib::Response& res, const AnalyzerApi* analyzer) {
  ModelKind kind = ModelKind::private_reports;
  if (req.has_param("kind")) {
    const std::string k = req.get_param_value("kind");
    if (k == "raw") {
      if (!analyzer->raw_enabled()) {
        return set_error(res, 404, "raw_disabled", "raw baseline disabled");
      }
      kind = ModelKind::raw_baseline;
    } else if (k != "private") {
      return set_error(res, 400, "unknown_kind", "unknown model kind");
    }
  }
  const std::shared_ptr<const SignedModel> model = analyzer->model(kind);
  if (!model) return set_error(res, 404, "no_model", "no model yet");
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

void post_raw(const httplib::Request& req, httplib::Response& res, AnalyzerApi* analyzer) {
  if (!analyzer->raw_enabled()) {
    return set_error(res, 404, "raw_disabled", "raw baseline disabled");
  }
  RawBatch raw;
  std::string err;
  if (!decode_raw(reinterpret_cast<const uint8_t*>(req.body.data()), req.body.size(),
                  analyzer->raw_dim(), analyzer->n_actions(), &raw, &err)) {
    return set_error(res, 400, "bad_raw", err);
  }
  const RawOutcome out = analyzer->apply_raw(raw);
  nlohmann::ordered_json body;
  body["applied"] = out.applied;
  body["version"] = out.version;
  json_reply(res, body);
}

}  // namespace

std::size_t batch_request_bytes(std::size_t records) {
  return server::kBatchHeaderBytes + records * server::kBatchRecordBytes + kSignatureBytes;
}

void install_routes(httplib::Server* server, AnalyzerApi* analyzer, Metrics* metrics, Logger* log,
                    std::size_t max_body, std::size_t max_batch_records,
                    const common::Readiness* readiness, common::AccessLog access_log) {
  // A body over --max-body is refused from its Content-Length, unread; to
  // /v1/batches that is a batch too large, and the shuffler is told so.
  common::configure_server(*server, max_body, *log,
                           [metrics, log, max_body, max_batch_records](const httplib::Request& req,
                                                                       httplib::Response& res) {
                             if (res.status != 413 || req.path != "/v1/batches") return false;
                             refuse_too_large(
                                 res, metrics, log,
                                 "the body is larger than " + std::to_string(max_body) + " bytes",
                                 max_batch_records);
                             return true;
                           });
  if (readiness != nullptr) common::serve_readiness(*server, *readiness);
  server->Post("/v1/batches", [analyzer, metrics, log, max_batch_records](
                                  const httplib::Request& req, httplib::Response& res) {
    post_batch(req, res, analyzer, metrics, log, max_batch_records);
  });
  server->Get("/v1/model", [analyzer](const httplib::Request& req, httplib::Response& res) {
    get_model(req, res, analyzer);
  });
  server->Post("/v1/raw", [analyzer](const httplib::Request& req, httplib::Response& res) {
    post_raw(req, res, analyzer);
  });
  server->Get("/metrics", [metrics](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics->prometheus_text(), "text/plain; version=0.0.4");
  });
  // Downloads are the bulk of the requests: a line each drowned the log.
  common::install_access_log(*server, *log, access_log, [](const httplib::Request& req) {
    return req.method == "GET" && (req.path == "/v1/model" || req.path == "/v1/keys");
  });
}

void serve_key_list(httplib::Server* server, const ServedKeyList* list) {
  server->Get("/v1/keys", [list](const httplib::Request& req, httplib::Response& res) {
    if (list == nullptr) return set_error(res, 404, "no_key_list", "no --key-list configured");
    res.set_header("ETag", list->etag);
    if (req.has_header("If-None-Match") &&
        etag_matches(req.get_header_value("If-None-Match"), list->etag)) {
      res.status = 304;
      return;
    }
    res.set_content(reinterpret_cast<const char*>(list->bytes.data()), list->bytes.size(),
                    "application/octet-stream");
  });
}

}  // namespace p2b::analyzer
