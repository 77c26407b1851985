// p2b-vfl-ap: the active party of O3M vertical federation
// (docs/vertical-services.md). Routes:
//   POST /v1/decide  {"user_token":hex32,"item_ids":[...]} -> {"item",..,"decision_id",..}
//   POST /v1/reward  {"decision_id":N,"reward":r}
//   POST /v1/mask    open the own bundle file again (after the PMG rotated Q)
//   GET  /v1/stats   decisions, time per decision, P2BV bytes per party
//   GET  /metrics    the same as Prometheus text, with the common families
//   GET  /healthz, GET /readyz (checks: storage, mask)
#include <httplib.h>

#include <sodium.h>

#include <string>

#include "common/exit_codes.hpp"
#include "common/json_log.hpp"
#include "common/keyfiles.hpp"
#include "common/option_values.hpp"
#include "common/service_host.hpp"
#include "common/service_main.hpp"
#include "common/service_options.hpp"
#include "vfl/ap_service.hpp"
#include "vfl/service_keys.hpp"
#include "vfl/service_metrics.hpp"
#include "vfl/service_routes.hpp"

namespace {

namespace common = p2b::common;
namespace vfl = p2b::vfl;
using common::ParseOutcome;

struct PartyArg {
  std::string url, key_file;
};

struct Options : common::ServiceOptions {
  uint32_t dim = 0;
  std::string bundle, features, pmg_key, model_store;
  std::vector<PartyArg> parties;
  p2b::SharedConfig model;
  bool allow_partial = false;
  int party_timeout_ms = 2000;
};

ParseOutcome parse_options(int argc, const char* const* argv, Options* out, std::string* message) {
  common::ServiceDefaults defaults;
  defaults.listen_port = 8720;
  defaults.keys_help = "DIR holding the active party's vfl.box.{pk,sk} (p2b-keygen --vfl)";
  defaults.store_help = "the state file (round_id ceiling, last mask epoch); created";
  defaults.max_body = 65536;
  common::ServiceCommandLine cli(
      "p2b-vfl-ap",
      "usage: p2b-vfl-ap --keys DIR --store FILE --dim D --bundle FILE --features FILE\n"
      "                  --pmg-key FILE --party URL,KEYFILE (once per passive party) [options]",
      "The active party of vertical federation: combines the parties' masked features and "
      "decides on a shared LinUCB/LinTS model (docs/vertical-services.md).",
      defaults);
  common::CommandLine& line = cli.command_line();
  std::string dim, policy = "linucb", alpha = "1", lambda = "1", ts_scale = "0.1", tie = "1e-9",
                   precision = "f64", max_items = "64", pending = "256", timeout = "2000";
  std::vector<std::string> parties;
  line.add_value("--dim", &dim, "the mask's d (the sum of every party's block)");
  line.add_value("--bundle", &out->bundle, "the active party's sealed P2BQ bundle (party 0)");
  line.add_value("--features", &out->features, "the own feature CSV (user_token_hex,item_id,f...)");
  line.add_value("--pmg-key", &out->pmg_key, "the PMG's Ed25519 public key (bundles must verify)");
  line.add_value("--model-store", &out->model_store,
                 "the model, decision ids and pending decisions (SQLite; default: the --store "
                 "FILE with .model appended); created");
  line.app().add_option(
      "--party", parties,
      "URL,KEYFILE of passive party 1, 2, ... in order (KEYFILE: its vfl.box.pk)");
  line.add_value("--policy", &policy, "linucb (default) or lints");
  line.add_value("--alpha", &alpha, "LinUCB exploration weight (default 1)");
  line.add_value("--lambda", &lambda, "ridge lambda (default 1)");
  line.add_value("--ts-scale", &ts_scale, "LinTS v (default 0.1)");
  line.add_value("--tie-rel-tol", &tie, "relative score tolerance of a tie (default 1e-9)");
  line.add_value("--precision", &precision, "f64 (default; lossless) or f32");
  line.add_value("--max-items", &max_items, "most items one decision may carry (default 64)");
  line.add_value("--pending", &pending, "decisions awaiting a reward (default 256)");
  line.add_value("--party-timeout-ms", &timeout,
                 "deadline of each party's connect and answer (default 2000)");
  line.app().add_flag("--allow-partial", out->allow_partial,
                      "decide without the parts of parties that failed, and say so");
  Options o;
  const ParseOutcome parsed = cli.parse(argc, argv, &o, message);
  if (parsed != ParseOutcome::ok) return parsed;
  auto bad = [message](const std::string& name, const std::string& what, const std::string& v) {
    return common::usage_error(message, common::bad_value(name, what, v));
  };
  uint64_t v = 0;
  if (!common::parse_count(dim, 2, vfl::kMaxMaskDim, &v)) return bad("dim", "2..4096", dim);
  o.dim = static_cast<uint32_t>(v);
  if (policy == "linucb") {
    o.model.policy = p2b::Policy::linucb;
  } else if (policy == "lints") {
    o.model.policy = p2b::Policy::lints;
  } else {
    return bad("policy", "linucb or lints", policy);
  }
  if (!common::parse_real(alpha, 0, 1e6, &o.model.alpha)) return bad("alpha", ">= 0", alpha);
  if (!common::parse_real(lambda, 1e-9, 1e9, &o.model.ridge_lambda)) {
    return bad("lambda", "> 0", lambda);
  }
  if (!common::parse_real(ts_scale, 0, 1e6, &o.model.ts_scale)) {
    return bad("ts-scale", ">= 0", ts_scale);
  }
  if (!common::parse_real(tie, 0, 1e-3, &o.model.tie_rel_tol)) {
    return bad("tie-rel-tol", "0..1e-3", tie);
  }
  if (precision == "f64") {
    o.model.precision = p2b::Precision::f64;
  } else if (precision == "f32") {
    o.model.precision = p2b::Precision::f32;
  } else {
    return bad("precision", "f64 or f32", precision);
  }
  if (!common::parse_count(max_items, 1, vfl::kMaxMaskedItems, &v)) {
    return bad("max-items", "1..4096", max_items);
  }
  o.model.max_items = static_cast<uint32_t>(v);
  if (!common::parse_count(pending, 1, 1 << 20, &v)) return bad("pending", "1..1048576", pending);
  o.model.pending_capacity = static_cast<uint32_t>(v);
  if (!common::parse_count(timeout, 1, 600000, &v)) {
    return bad("party-timeout-ms", "1..600000", timeout);
  }
  o.party_timeout_ms = static_cast<int>(v);
  for (const std::string& p : parties) {
    const std::size_t comma = p.rfind(',');
    if (comma == std::string::npos || comma == 0 || comma + 1 == p.size()) {
      return bad("party", "URL,KEYFILE", p);
    }
    o.parties.push_back({p.substr(0, comma), p.substr(comma + 1)});
  }
  if (o.parties.empty()) return common::usage_error(message, "--party is required");
  if (out->bundle.empty() || out->features.empty() || out->pmg_key.empty()) {
    return common::usage_error(message, "--bundle, --features and --pmg-key are required");
  }
  if (o.key_dirs.size() != 1) return common::usage_error(message, "--keys: give one DIR");
  o.bundle = out->bundle;
  o.features = out->features;
  o.pmg_key = out->pmg_key;
  o.model_store = out->model_store.empty() ? o.store + ".model" : out->model_store;
  o.allow_partial = out->allow_partial;
  *out = std::move(o);
  return ParseOutcome::ok;
}

int run(const Options& opt, common::Logger& log) {
  vfl::ApConfig cfg;
  cfg.d = opt.dim;
  cfg.bundle_path = opt.bundle;
  cfg.features_path = opt.features;
  cfg.state_path = opt.store;
  cfg.model_store_path = opt.model_store;
  cfg.model = opt.model;
  cfg.allow_partial = opt.allow_partial;
  cfg.party_timeout_ms = opt.party_timeout_ms;
  std::string err, warning, pmg_fp, own_fp;
  std::vector<std::string> party_fps;
  bool keys_ok = vfl::load_box_pair(opt.key_dirs[0], cfg.box_pk, cfg.box_sk, &warning, &err) &&
                 vfl::load_public_key(opt.pmg_key, cfg.pmg_sign_pk, &pmg_fp, &err);
  for (std::size_t j = 0; keys_ok && j < opt.parties.size(); ++j) {
    vfl::PartyLink link;
    link.url = opt.parties[j].url;
    std::string fp;
    keys_ok = vfl::load_public_key(opt.parties[j].key_file, link.box_pk, &fp, &err);
    party_fps.push_back(fp);
    cfg.parties.push_back(link);
  }
  if (!keys_ok) {
    log.error("keys_unreadable", {{"error", err}});
    return common::kExitConfig;
  }
  if (!warning.empty()) log.warn("secret_key_mode", {{"warning", warning}});
  p2b::keyfiles::fingerprint_hex(cfg.box_pk, &own_fp);
  vfl::ApService service;
  const bool started = service.start(cfg, &err);
  sodium_memzero(cfg.box_sk, sizeof cfg.box_sk);
  if (!started) {
    log.error("start_failed", {{"error", err}});
    return service.store_refused() ? common::kExitStoreRefused : common::kExitFailure;
  }
  common::ServiceHost host(opt, "p2b_vfl_ap", log, [](const httplib::Request& req) {
    return req.path == "/v1/decide" || req.path == "/v1/reward";
  });
  host.readiness().add("storage", [&service] { return service.store_check(); });
  vfl::add_mask_check(host.readiness(), service);
  host.serve_metrics([&service](common::PrometheusText& out) {
    vfl::render_ap_metrics(out, service.stats(), service.epoch());
  });
  httplib::Server& server = host.server();
  server.Post("/v1/decide", [&service, &log](const httplib::Request& req, httplib::Response& res) {
    const vfl::ServiceReply r = service.decide(req.body);
    // Codes and counts only: never a feature, a score or a key.
    if (!r.code.empty()) log.warn("decision_refused", {{"error", r.code}, {"status", r.status}});
    vfl::answer(res, r);
  });
  server.Post("/v1/reward", [&service](const httplib::Request& req, httplib::Response& res) {
    vfl::answer(res, service.reward(req.body));
  });
  vfl::serve_mask_reload(server, service, log, true);
  server.Get("/v1/stats", [&service](const httplib::Request&, httplib::Response& res) {
    const vfl::ApStats s = service.stats();
    res.set_content(nlohmann::json{{"decisions", s.decisions},
                                   {"partial", s.partial},
                                   {"refused", s.refused},
                                   {"rewards", s.rewards},
                                   {"rewards_applied", s.rewards_applied},
                                   {"model_updates", s.model_updates},
                                   {"next_decision_id", s.next_decision_id},
                                   {"checkpoint_seq", s.checkpoint_seq},
                                   {"model_digest", s.model_digest},
                                   {"decide_ns", s.decide_ns},
                                   {"exchange_ns", s.exchange_ns},
                                   {"store_ns", s.store_ns},
                                   {"party_bytes", s.party_bytes},
                                   {"party_messages", s.party_messages}}
                        .dump(),
                    "application/json");
  });
  return host.run([&](int port) {
    log.info("started", {{"port", port},
                         {"dim", opt.dim},
                         {"parties", service.parties()},
                         {"epoch", service.epoch()},
                         {"mask_id", service.mask_id_hex()},
                         {"next_decision_id", service.stats().next_decision_id},
                         {"box_key_fingerprint", own_fp},
                         {"pmg_key_fingerprint", pmg_fp},
                         {"party_key_fingerprints", party_fps},
                         {"policy", opt.model.policy == p2b::Policy::linucb ? "linucb" : "lints"},
                         {"precision", opt.model.precision == p2b::Precision::f64 ? "f64" : "f32"},
                         {"tie_rel_tol", opt.model.tie_rel_tol},
                         {"allow_partial", opt.allow_partial},
                         {"party_timeout_ms", opt.party_timeout_ms}});
  });
}

}  // namespace

int main(int argc, char** argv) {
  return p2b::common::service_main<Options>("p2b-vfl-ap", argc, argv, parse_options, run);
}
