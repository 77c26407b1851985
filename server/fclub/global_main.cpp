// p2b-fclub-global: FCLUB's global server as a service (docs/fclub-services.md).
// Routes:
//   POST /v1/fclub/upload       one sealed P2BU message from a local server
//   POST /v1/fclub/phase-done   ?server=S&phase=P&clusters=N: S sent its N phase-start uploads
//                               (body: S's Ed25519 signature of that, fclub/phase_done.hpp)
//   GET  /v1/fclub/downloads    ?server=S&after=V: up to 64 sealed P2BD messages for S of
//                               version > V; only reads
//   POST /v1/fclub/downloads-ack ?server=S&version=V: deletes S's downloads of version <= V
//                               (body: S's Ed25519 signature of that, fclub/downloads_ack.hpp)
//   GET  /v1/fclub/phase        {"phase":P}, the phase clock
//   POST /v1/fclub/advance      next phase (only when --listen is loopback, or from loopback)
//   GET  /v1/fclub/stats        counts; GET /healthz, GET /readyz
// Eigen (through fclub_services.hpp) comes before httplib, whose <resolv.h>
// defines a macro `_res` that Eigen uses as a parameter name.
#include "fclub/fclub_services.hpp"

#include <httplib.h>

#include <sodium.h>

#include <chrono>
#include <ctime>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/command_line.hpp"
#include "common/exit_codes.hpp"
#include "common/json_log.hpp"
#include "common/option_values.hpp"
#include "common/prometheus_text.hpp"
#include "common/readiness.hpp"
#include "common/service_host.hpp"
#include "common/service_main.hpp"
#include "common/service_options.hpp"
#include "fclub/wire/fclub_wire.hpp"

namespace {

namespace common = p2b::common;
namespace fclub = p2b::fclub;
using common::ParseOutcome;

struct Options : common::ServiceOptions {
  std::map<uint32_t, std::string> locals;  // server id -> its key directory
  uint32_t dim = 10;
  double phase_seconds = 0;
  double epsilon = 0;  // 0: not private
  double delta = 0.1;
};

ParseOutcome parse_options(int argc, const char* const* argv, Options* out, std::string* message) {
  common::ServiceDefaults defaults;
  defaults.keys_help = "DIR with fclub.box.{pk,sk} and fclub.sign.{pk,sk}";
  defaults.store_help =
      "journal every accepted upload, phase-done, advance and acknowledgement in this SQLite "
      "file and replay it at start, so a restart resumes at its phase "
      "(docs/fclub-services.md, \"Durability\"); default: memory only";
  defaults.store_required = false;
  defaults.max_body_help =
      "largest request body in bytes (default: two uploads of --dim, plus 1024)";
  common::ServiceCommandLine cli(
      "p2b-fclub-global", "usage: p2b-fclub-global --keys DIR --local ID=DIR... --dim D [options]",
      "FCLUB's global server: merges the local servers' clusters and sends them the others' "
      "statistics (docs/fclub-services.md).",
      defaults);
  common::CommandLine& line = cli.command_line();
  std::string dim, phase_seconds, epsilon, delta;
  std::vector<std::string> locals;
  line.app().add_option("--local", locals,
                        "ID=DIR: local server ID's public keys (DIR/fclub.sign.pk, "
                        "DIR/fclub.box.pk); once per local server");
  line.add_value("--dim", &dim, "the context dimension d (1..64)");
  line.add_value("--phase-seconds", &phase_seconds, "advance the phase every S seconds (0: never)");
  line.add_value(
      "--epsilon", &epsilon,
      "the deployment is private (CDP-FCLUB-DC) at this epsilon; must match the locals'");
  line.add_value("--delta", &delta, "its delta (default 0.1)");
  Options o;
  const ParseOutcome parsed = cli.parse(argc, argv, &o, message);
  if (parsed != ParseOutcome::ok) return parsed;
  if (o.key_dirs.size() != 1) return common::usage_error(message, "--keys: give one DIR");
  uint64_t v = 0;
  if (!common::parse_count(dim, 1, fclub::kMaxDim, &v)) {
    return common::usage_error(message, common::bad_value("dim", "1..64", dim));
  }
  o.dim = static_cast<uint32_t>(v);
  if (!phase_seconds.empty() && !common::parse_real(phase_seconds, 0, 1e9, &o.phase_seconds)) {
    return common::usage_error(message,
                               common::bad_value("phase-seconds", "seconds >= 0", phase_seconds));
  }
  if (!epsilon.empty() && !common::parse_real(epsilon, 1e-6, 1e6, &o.epsilon)) {
    return common::usage_error(message, common::bad_value("epsilon", "a number > 0", epsilon));
  }
  if (!delta.empty() && !common::parse_real(delta, 1e-12, 0.5, &o.delta)) {
    return common::usage_error(message, common::bad_value("delta", "in (0, 0.5]", delta));
  }
  for (const std::string& l : locals) {
    const auto eq = l.find('=');
    if (eq == std::string::npos || !common::parse_count(l.substr(0, eq), 0, UINT32_MAX, &v) ||
        eq + 1 == l.size()) {
      return common::usage_error(message, common::bad_value("local", "ID=DIR", l));
    }
    o.locals[static_cast<uint32_t>(v)] = l.substr(eq + 1);
  }
  if (o.locals.empty()) return common::usage_error(message, "give --local ID=DIR at least once");
  // Two uploads' worth: an upload's length is fixed per dim (fclub/wire).
  if (o.max_body == 0) o.max_body = 2 * fclub::upload_wire_size(o.dim) + 1024;
  *out = std::move(o);
  return ParseOutcome::ok;
}

void answer(httplib::Response& res, const fclub::Reply& r) {
  res.status = r.status;
  res.set_content(r.body, r.content_type);
}

bool parse_u64(const httplib::Request& req, const char* name, uint64_t hi, uint64_t* out) {
  return req.has_param(name) && common::parse_count(req.get_param_value(name), 0, hi, out);
}

bool is_loopback(const std::string& addr) {
  return addr == "127.0.0.1" || addr == "::1" || addr == "::ffff:127.0.0.1" || addr == "localhost";
}

int run(const Options& opt, common::Logger& log) {
  fclub::ServiceKeys keys;
  std::string err, warning;
  if (!fclub::load_service_keys(opt.key_dirs.front(), false, &keys, &warning, &err)) {
    log.error("keys_unreadable", {{"error", err}});
    return common::kExitConfig;
  }
  if (!warning.empty()) log.warn("secret_key_mode", {{"warning", warning}});
  std::map<uint32_t, fclub::PeerKeys> locals;
  for (const auto& [id, dir] : opt.locals) {
    if (!fclub::load_peer_keys(dir, &locals[id], &err)) {
      log.error("keys_unreadable", {{"error", err}});
      return common::kExitConfig;
    }
  }
  fclub::FclubConfig cfg;
  cfg.dim = opt.dim;
  cfg.n_servers = static_cast<uint32_t>(locals.size());
  cfg.private_uploads = opt.epsilon > 0;
  if (cfg.private_uploads) {
    cfg.epsilon = opt.epsilon;
    cfg.delta = opt.delta;
  }
  if (const char* why = fclub::check_config(cfg)) {
    log.error("bad_config", {{"error", why}});
    return common::kExitFailure;
  }
  fclub::GlobalService service(cfg, keys, locals, &log);
  sodium_memzero(&keys, sizeof keys);
  if (!opt.store.empty() && !service.open_store(opt.store, &err)) {
    log.error("store_unusable", {{"error", err}});
    return common::kExitFailure;
  }

  common::ServiceHost host(opt, "p2b_fclub_global", log, [](const httplib::Request& req) {
    return req.path == "/v1/fclub/upload" || req.path == "/v1/fclub/downloads" ||
           req.path == "/v1/fclub/downloads-ack" || req.path == "/v1/fclub/phase";
  });
  host.readiness().add(
      "phase", [&service] { return common::check_ok("phase " + std::to_string(service.phase())); });
  host.readiness().add("store", [&service] {
    return service.store_ok() ? common::check_ok("writable")
                              : common::check_failed("a journal write failed: restart");
  });
  host.serve_metrics([&service](common::PrometheusText& out) {
    out.append(fclub::stats_as_prometheus("p2b_fclub_global_", service.stats_json()));
  });
  httplib::Server& server = host.server();
  server.Post("/v1/fclub/upload", [&](const httplib::Request& req, httplib::Response& res) {
    const fclub::Reply r = service.upload(req.body);
    if (!r.code.empty()) {
      log.warn("upload_refused", {{"error", r.code}, {"bytes", req.body.size()}});
    }
    answer(res, r);
  });
  server.Post("/v1/fclub/phase-done", [&](const httplib::Request& req, httplib::Response& res) {
    uint64_t s = 0, p = 0, n = 0;
    if (!parse_u64(req, "server", UINT32_MAX, &s) || !parse_u64(req, "phase", UINT32_MAX, &p) ||
        !parse_u64(req, "clusters", UINT32_MAX, &n)) {
      answer(res, {400, R"({"error":"bad_request"})", "application/json", "bad_request"});
      return;
    }
    const fclub::Reply r = service.phase_done(static_cast<uint32_t>(s), static_cast<uint32_t>(p),
                                              static_cast<uint32_t>(n), req.body);
    if (!r.code.empty()) {
      log.warn("phase_done_refused", {{"error", r.code}, {"server", s}, {"phase", p}});
    }
    answer(res, r);
  });
  server.Get("/v1/fclub/downloads", [&](const httplib::Request& req, httplib::Response& res) {
    uint64_t s = 0, after = 0;
    if (!parse_u64(req, "server", UINT32_MAX, &s) || !parse_u64(req, "after", UINT64_MAX, &after)) {
      answer(res, {400, R"({"error":"bad_request"})", "application/json", "bad_request"});
      return;
    }
    answer(res, service.downloads(static_cast<uint32_t>(s), after));
  });
  server.Post("/v1/fclub/downloads-ack", [&](const httplib::Request& req, httplib::Response& res) {
    uint64_t s = 0, version = 0;
    if (!parse_u64(req, "server", UINT32_MAX, &s) ||
        !parse_u64(req, "version", UINT64_MAX, &version)) {
      answer(res, {400, R"({"error":"bad_request"})", "application/json", "bad_request"});
      return;
    }
    const fclub::Reply r = service.downloads_ack(static_cast<uint32_t>(s), version, req.body);
    if (!r.code.empty()) {
      // Never the body: it is (or poses as) a signature.
      log.warn("downloads_ack_refused",
               {{"error", r.code}, {"server", s}, {"version", version}, {"peer", req.remote_addr}});
    }
    answer(res, r);
  });
  server.Get("/v1/fclub/cluster-model", [&](const httplib::Request& req, httplib::Response& res) {
    uint64_t srv = 0, cluster = 0;
    if (!parse_u64(req, "server", UINT32_MAX, &srv) ||
        !parse_u64(req, "cluster", UINT32_MAX, &cluster)) {
      answer(res, {400, R"({"error":"bad_query"})", "application/json", "bad_query"});
      return;
    }
    const auto now = static_cast<uint64_t>(std::time(nullptr));
    answer(res,
           service.cluster_model(static_cast<uint32_t>(srv), static_cast<uint32_t>(cluster), now));
  });
  server.Get("/v1/fclub/phase", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(nlohmann::json{{"phase", service.phase()}}.dump(), "application/json");
  });
  server.Post("/v1/fclub/advance", [&](const httplib::Request& req, httplib::Response& res) {
    // Bound to loopback, every client is local; otherwise the peer must be
    // (BoundedServer may leave remote_addr empty: then it is refused).
    if (!is_loopback(opt.listen_host) && !is_loopback(req.remote_addr)) {
      answer(res, {403, R"({"error":"forbidden"})", "application/json", "forbidden"});
      return;
    }
    answer(res, service.advance());
  });
  server.Get("/v1/fclub/stats", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(service.stats_json().dump(), "application/json");
  });
  if (opt.phase_seconds > 0) {
    host.every(std::chrono::duration<double>(opt.phase_seconds), "phase_clock",
               [&service] { service.advance(); });
  }
  return host.run([&](int port) {
    log.info("started", {{"port", port},
                         {"dim", opt.dim},
                         {"local_servers", locals.size()},
                         {"phase_seconds", opt.phase_seconds},
                         {"store", opt.store.empty() ? "memory" : opt.store}});
  });
}

}  // namespace

int main(int argc, char** argv) {
  return p2b::common::service_main<Options>("p2b-fclub-global", argc, argv, parse_options, run);
}
