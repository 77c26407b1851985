// p2b-fclub-local: an FCLUB local server as a service (docs/fclub-services.md).
// It learns from its own users' rewards, uploads sealed P2BU messages to
// p2b-fclub-global (kept in an outbox while the global is away) and applies
// the global's P2BD downloads in version order. With --store it journals
// every reward, phase start, download and sent message before acting on it
// (local_journal.hpp) and replays the journal at start. Routes:
//   POST /v1/recommend  {"user":u,"items":[[...],...]} -> {"item":k}
//   POST /v1/reward     {"user":u,"x":[...],"reward":y}
//   GET  /v1/fclub/stats  counts; GET /healthz, GET /readyz
// Eigen (through fclub_services.hpp) comes before httplib, whose <resolv.h>
// defines a macro `_res` that Eigen uses as a parameter name.
#include "fclub/fclub_services.hpp"
#include "fclub/global_link.hpp"

#include <httplib.h>

#include <sodium.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>

#include "common/command_line.hpp"
#include "common/exit_codes.hpp"
#include "common/json_log.hpp"
#include "common/option_values.hpp"
#include "common/prometheus_text.hpp"
#include "common/readiness.hpp"
#include "common/service_host.hpp"
#include "common/service_main.hpp"
#include "common/service_options.hpp"

namespace {

namespace common = p2b::common;
namespace fclub = p2b::fclub;
using common::ParseOutcome;

struct Options : common::ServiceOptions {
  std::string global_keys, global_url;
  uint32_t id = 0;
  uint32_t users = 0;
  uint32_t servers = 1;
  uint32_t dim = 10;
  uint32_t poll_ms = 200;
  double epsilon = 0;  // 0: not private
  double delta = 0.1;
};

ParseOutcome parse_options(int argc, const char* const* argv, Options* out, std::string* message) {
  common::ServiceDefaults defaults;
  defaults.keys_help = "DIR with fclub.box.{pk,sk}, fclub.sign.{pk,sk} and fclub.noise.sk";
  defaults.store_help =
      "journal rewards, phases, downloads and the outbox in this SQLite file and replay it at "
      "start, so a restart keeps them and the CDP ledger (docs/fclub-services.md, "
      "\"Durability\"); default: memory only";
  defaults.store_required = false;
  // A recommend request carries up to 1024 items of 64 numbers as JSON.
  defaults.max_body = std::size_t{4} << 20;
  common::ServiceCommandLine cli(
      "p2b-fclub-local",
      "usage: p2b-fclub-local --keys DIR --id N --users N --servers N --dim D\n"
      "                       --global http://HOST:PORT --global-keys DIR [options]",
      "An FCLUB local server: recommends to its users and shares cluster statistics with "
      "p2b-fclub-global (docs/fclub-services.md).",
      defaults);
  common::CommandLine& line = cli.command_line();
  std::string id, users, servers, dim, poll_ms, epsilon, delta;
  line.add_value("--id", &id, "this local server's id, as the global's --local ID=DIR names it");
  line.add_value("--users", &users, "how many users this server has (1..100000)");
  line.add_value("--servers", &servers, "how many local servers the deployment has");
  line.add_value("--dim", &dim, "the context dimension d (1..64)");
  std::string global_url, global_keys;
  line.add_value("--global", &global_url, "the global server, http://HOST:PORT");
  line.add_value("--global-keys", &global_keys,
                 "DIR with the global's fclub.box.pk and fclub.sign.pk");
  line.add_value("--poll-ms", &poll_ms, "how often to ask the global (default 200)");
  line.add_value("--epsilon", &epsilon,
                 "upload privatized statistics (CDP-FCLUB-DC) at this epsilon per interaction "
                 "over the whole run (docs/fclub.md)");
  line.add_value("--delta", &delta, "its delta (default 0.1)");
  Options o;
  const ParseOutcome parsed = cli.parse(argc, argv, &o, message);
  if (parsed != ParseOutcome::ok) return parsed;
  if (o.key_dirs.size() != 1) return common::usage_error(message, "--keys: give one DIR");
  o.global_url = global_url;
  o.global_keys = global_keys;
  if (o.global_keys.empty() || o.global_url.empty()) {
    return common::usage_error(message, "--global and --global-keys are required");
  }
  uint64_t v = 0;
  if (!common::parse_count(id, 0, UINT32_MAX, &v)) {
    return common::usage_error(message, common::bad_value("id", "an integer", id));
  }
  o.id = static_cast<uint32_t>(v);
  if (!common::parse_count(users, 1, 100000, &v)) {
    return common::usage_error(message, common::bad_value("users", "1..100000", users));
  }
  o.users = static_cast<uint32_t>(v);
  if (!servers.empty()) {
    if (!common::parse_count(servers, 1, 1 << 20, &v)) {
      return common::usage_error(message, common::bad_value("servers", ">= 1", servers));
    }
    o.servers = static_cast<uint32_t>(v);
  }
  if (!common::parse_count(dim, 1, fclub::kMaxDim, &v)) {
    return common::usage_error(message, common::bad_value("dim", "1..64", dim));
  }
  o.dim = static_cast<uint32_t>(v);
  if (!poll_ms.empty()) {
    if (!common::parse_count(poll_ms, 10, 600000, &v)) {
      return common::usage_error(message, common::bad_value("poll-ms", "10..600000", poll_ms));
    }
    o.poll_ms = static_cast<uint32_t>(v);
  }
  if (!epsilon.empty() && !common::parse_real(epsilon, 1e-6, 1e6, &o.epsilon)) {
    return common::usage_error(message, common::bad_value("epsilon", "a number > 0", epsilon));
  }
  if (!delta.empty() && !common::parse_real(delta, 1e-12, 0.5, &o.delta)) {
    return common::usage_error(message, common::bad_value("delta", "in (0, 0.5]", delta));
  }
  *out = std::move(o);
  return ParseOutcome::ok;
}

void answer(httplib::Response& res, const fclub::Reply& r) {
  res.status = r.status;
  res.set_content(r.body, r.content_type);
}

int run(const Options& opt, common::Logger& log) {
  fclub::ServiceKeys keys;
  fclub::PeerKeys global;
  std::string err, warning;
  if (!fclub::load_service_keys(opt.key_dirs.front(), true, &keys, &warning, &err) ||
      !fclub::load_peer_keys(opt.global_keys, &global, &err)) {
    log.error("keys_unreadable", {{"error", err}});
    return common::kExitConfig;
  }
  if (!warning.empty()) log.warn("secret_key_mode", {{"warning", warning}});
  fclub::FclubConfig cfg;
  cfg.dim = opt.dim;
  cfg.n_servers = opt.servers;
  cfg.private_uploads = opt.epsilon > 0;
  if (cfg.private_uploads) {
    cfg.epsilon = opt.epsilon;
    cfg.delta = opt.delta;
  }
  if (const char* why = fclub::check_config(cfg)) {
    log.error("bad_config", {{"error", why}});
    return common::kExitFailure;
  }
  fclub::LocalService service(cfg, opt.id, opt.users, keys, global, &log);
  sodium_memzero(&keys, sizeof keys);
  bool refused = false;
  if (!opt.store.empty() && !service.open_store(opt.store, &err, &refused)) {
    log.error("store_unusable", {{"error", err}});
    return refused ? common::kExitStoreRefused : common::kExitFailure;
  }

  // Every answer capped and counted when too large (global_link.hpp).
  const fclub::GlobalLink link = fclub::http_global_link(opt.global_url, 10.0);

  common::ServiceHost host(opt, "p2b_fclub_local", log, [](const httplib::Request& req) {
    return req.path == "/v1/recommend" || req.path == "/v1/reward";
  });
  host.readiness().add("local", [] { return common::check_ok("serving"); });
  host.readiness().add("store", [&service] {
    return service.store_ok() ? common::check_ok("writable")
                              : common::check_failed("a journal write failed: restart");
  });
  host.serve_metrics([&service](common::PrometheusText& out) {
    out.append(fclub::stats_as_prometheus("p2b_fclub_local_", service.stats_json()));
  });
  httplib::Server& server = host.server();
  server.Post("/v1/recommend", [&](const httplib::Request& req, httplib::Response& res) {
    answer(res, service.recommend(req.body));
  });
  server.Post("/v1/reward", [&](const httplib::Request& req, httplib::Response& res) {
    answer(res, service.reward(req.body));
  });
  server.Get("/v1/fclub/stats", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(service.stats_json().dump(), "application/json");
  });
  host.every(std::chrono::milliseconds(opt.poll_ms), "poll", [&] { service.poll(link); });
  return host.run(
      [&](int port) {
        log.info("started", {{"port", port},
                             {"id", opt.id},
                             {"users", opt.users},
                             {"dim", opt.dim},
                             {"poll_ms", opt.poll_ms},
                             {"store", opt.store.empty() ? "memory" : opt.store}});
      },
      [&] {
        log.info("final_counts", {{"stats", service.stats_json()}});
      });
}

}  // namespace

int main(int argc, char** argv) {
  return p2b::common::service_main<Options>("p2b-fclub-local", argc, argv, parse_options, run);
}
