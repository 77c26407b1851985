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

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/bounded_server.hpp"
#include "common/command_line.hpp"
#include "common/exit_codes.hpp"
#include "common/http_server.hpp"
#include "common/json_log.hpp"
#include "common/keyfiles.hpp"
#include "common/option_values.hpp"
#include "common/readiness.hpp"
#include "common/service_main.hpp"
#include "common/shutdown.hpp"
#include "fclub/wire/fclub_wire.hpp"

namespace {

namespace common = p2b::common;
namespace fclub = p2b::fclub;
using common::ParseOutcome;

struct Options {
  common::LogLevel log_level = common::LogLevel::info;
  std::string log_file;
  std::string host = "127.0.0.1";
  int port = 0;
  std::string keys;
  std::string store;                       // empty: in memory only
  std::map<uint32_t, std::string> locals;  // server id -> its key directory
  uint32_t dim = 10;
  double phase_seconds = 0;
  double epsilon = 0;  // 0: not private
  double delta = 0.1;
};

ParseOutcome parse_options(int argc, const char* const* argv, Options* out, std::string* message) {
  common::CommandLine line(
      "p2b-fclub-global", "usage: p2b-fclub-global --keys DIR --local ID=DIR... --dim D [options]",
      "FCLUB's global server: merges the local servers' clusters and sends them the others' "
      "statistics (docs/fclub-services.md).",
      true);
  std::string listen, dim, phase_seconds, level, log_file;
  std::vector<std::string> locals;
  line.add_value("--listen", &listen, "HOST:PORT (default 127.0.0.1:0, a free port)");
  line.add_value("--keys", &out->keys, "DIR with fclub.box.{pk,sk} and fclub.sign.{pk,sk}");
  line.app().add_option("--local", locals,
                        "ID=DIR: local server ID's public keys (DIR/fclub.sign.pk, "
                        "DIR/fclub.box.pk); once per local server");
  line.add_value("--dim", &dim, "the context dimension d (1..64)");
  line.add_value("--store", &out->store,
                 "PATH of the SQLite journal that keeps the state across restarts "
                 "(default: in memory only)");
  line.add_value("--phase-seconds", &phase_seconds, "advance the phase every S seconds (0: never)");
  std::string epsilon, delta;
  line.add_value(
      "--epsilon", &epsilon,
      "the deployment is private (CDP-FCLUB-DC) at this epsilon; must match the locals'");
  line.add_value("--delta", &delta, "its delta (default 0.1)");
  line.add_value("--log-level", &level, "debug, info, warn or error");
  line.add_value("--log-file", &log_file, "append the log here instead of stderr");
  const ParseOutcome parsed = line.parse(argc, argv, message);
  if (parsed != ParseOutcome::ok) return parsed;
  if (!listen.empty() && !common::parse_listen(listen, &out->host, &out->port)) {
    return common::usage_error(message, common::bad_value("listen", "HOST:PORT", listen));
  }
  if (out->keys.empty()) return common::usage_error(message, "--keys is required");
  uint64_t v = 0;
  if (!common::parse_count(dim, 1, fclub::kMaxDim, &v)) {
    return common::usage_error(message, common::bad_value("dim", "1..64", dim));
  }
  out->dim = static_cast<uint32_t>(v);
  if (!phase_seconds.empty() && !common::parse_real(phase_seconds, 0, 1e9, &out->phase_seconds)) {
    return common::usage_error(message,
                               common::bad_value("phase-seconds", "seconds >= 0", phase_seconds));
  }
  if (!epsilon.empty() && !common::parse_real(epsilon, 1e-6, 1e6, &out->epsilon)) {
    return common::usage_error(message, common::bad_value("epsilon", "a number > 0", epsilon));
  }
  if (!delta.empty() && !common::parse_real(delta, 1e-12, 0.5, &out->delta)) {
    return common::usage_error(message, common::bad_value("delta", "in (0, 0.5]", delta));
  }
  if (!level.empty() && !common::parse_log_level(level, &out->log_level)) {
    return common::usage_error(message, common::bad_value("log-level", "a level", level));
  }
  out->log_file = log_file;
  for (const std::string& l : locals) {
    const auto eq = l.find('=');
    if (eq == std::string::npos || !common::parse_count(l.substr(0, eq), 0, UINT32_MAX, &v) ||
        eq + 1 == l.size()) {
      return common::usage_error(message, common::bad_value("local", "ID=DIR", l));
    }
    out->locals[static_cast<uint32_t>(v)] = l.substr(eq + 1);
  }
  if (out->locals.empty()) return common::usage_error(message, "give --local ID=DIR at least once");
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
  if (!fclub::load_service_keys(opt.keys, false, &keys, &warning, &err)) {
    log.error("keys_unreadable", {{"error", err}});
    return common::kExitFailure;
  }
  if (!warning.empty()) log.warn("secret_key_mode", {{"warning", warning}});
  std::map<uint32_t, fclub::PeerKeys> locals;
  for (const auto& [id, dir] : opt.locals) {
    if (!fclub::load_peer_keys(dir, &locals[id], &err)) {
      log.error("keys_unreadable", {{"error", err}});
      return common::kExitFailure;
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

  common::Readiness readiness;
  readiness.add(
      "phase", [&service] { return common::check_ok("phase " + std::to_string(service.phase())); });
  readiness.add("store", [&service] {
    return service.store_ok() ? common::check_ok("writable")
                              : common::check_failed("a journal write failed: restart");
  });
  common::HttpCounters counters;
  common::BoundedServer server(common::HttpLimits{}, counters);
  common::configure_server(server, 2 * fclub::upload_wire_size(opt.dim) + 1024, log);
  common::serve_readiness(server, readiness);
  common::install_access_log(
      server, log, common::AccessLog::standard, [](const httplib::Request& req) {
        return req.path == "/v1/fclub/upload" || req.path == "/v1/fclub/downloads" ||
               req.path == "/v1/fclub/downloads-ack" || req.path == "/v1/fclub/phase";
      });
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
    if (!is_loopback(opt.host) && !is_loopback(req.remote_addr)) {
      answer(res, {403, R"({"error":"forbidden"})", "application/json", "forbidden"});
      return;
    }
    answer(res, service.advance());
  });
  server.Get("/v1/fclub/stats", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(service.stats_json().dump(), "application/json");
  });
  server.Get("/metrics", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(fclub::stats_as_prometheus("p2b_fclub_global_", service.stats_json()),
                    "text/plain; version=0.0.4");
  });
  const int port = common::bind_and_announce(server, opt.host, opt.port, log);
  if (port < 0) return common::kExitFailure;

  std::mutex mu;
  std::condition_variable cv;
  bool stopping = false;
  std::thread clock;
  if (opt.phase_seconds > 0) {
    clock = std::thread([&] {
      std::unique_lock<std::mutex> lock(mu);
      const auto period = std::chrono::duration<double>(opt.phase_seconds);
      while (!cv.wait_for(lock, period, [&] { return stopping; })) service.advance();
    });
  }
  log.info("started", {{"port", port},
                       {"dim", opt.dim},
                       {"local_servers", locals.size()},
                       {"phase_seconds", opt.phase_seconds},
                       {"store", opt.store.empty() ? "memory" : opt.store}});
  const common::StopOutcome outcome = common::serve_until_stopped(server, log);
  {
    std::lock_guard<std::mutex> lock(mu);
    stopping = true;
  }
  cv.notify_all();
  if (clock.joinable()) clock.join();
  return common::finish_stop(outcome, log);
}

}  // namespace

int main(int argc, char** argv) {
  return p2b::common::service_main<Options>("p2b-fclub-global", argc, argv, parse_options, run);
}
