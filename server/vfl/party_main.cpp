// p2b-vfl-party: a passive party of O3M vertical federation
// (docs/vertical-services.md). Routes:
//   POST /v1/masked  a P2BR request from the active party -> a P2BV message
//   POST /v1/mask    open the bundle file again (after the PMG rotated Q)
//   GET  /v1/stats   answered, refused, time spent answering
//   GET  /metrics    the same as Prometheus text, with the common families
//   GET  /healthz, GET /readyz (check: mask)
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
#include "vfl/masked_request.hpp"
#include "vfl/party_service.hpp"
#include "vfl/service_keys.hpp"
#include "vfl/service_metrics.hpp"
#include "vfl/service_routes.hpp"

namespace {

namespace common = p2b::common;
namespace vfl = p2b::vfl;
using common::ParseOutcome;

struct Options : common::ServiceOptions {
  uint32_t party_index = 1;
  uint32_t dim = 0;
  std::string bundle, features, pmg_key, ap_key;
};

ParseOutcome parse_options(int argc, const char* const* argv, Options* out, std::string* message) {
  common::ServiceDefaults defaults;
  defaults.listen_port = 8730;
  defaults.keys_help = "DIR holding this party's vfl.box.{pk,sk} (p2b-keygen --vfl)";
  defaults.store_help = "the state file (last round_id answered, last mask epoch); created";
  defaults.max_body = vfl::masked_request_bytes(vfl::kMaxMaskedItems);
  defaults.min_body = vfl::masked_request_bytes(1);
  common::ServiceCommandLine cli(
      "p2b-vfl-party",
      "usage: p2b-vfl-party --keys DIR --store FILE --party-index J --dim D --bundle FILE\n"
      "                     --features FILE --pmg-key FILE --ap-key FILE [options]",
      "A passive party of vertical federation: answers the active party's requests with "
      "its masked features Q^j x^j (docs/vertical-services.md).",
      defaults);
  common::CommandLine& line = cli.command_line();
  std::string index, dim;
  line.add_value("--party-index", &index, "this party's index j >= 1 in the mask's partition");
  line.add_value("--dim", &dim, "the mask's d (the sum of every party's block)");
  line.add_value("--bundle", &out->bundle, "this party's sealed P2BQ bundle from p2b-vfl-pmg");
  line.add_value("--features", &out->features, "the feature CSV (user_token_hex,item_id,f...)");
  line.add_value("--pmg-key", &out->pmg_key, "the PMG's Ed25519 public key (bundles must verify)");
  line.add_value("--ap-key", &out->ap_key, "the active party's X25519 public key (vfl.box.pk)");
  Options o;
  const ParseOutcome parsed = cli.parse(argc, argv, &o, message);
  if (parsed != ParseOutcome::ok) return parsed;
  uint64_t v = 0;
  if (!common::parse_count(index, 1, vfl::kMaxMaskDim - 1, &v)) {
    return common::usage_error(message, common::bad_value("party-index", "an integer >= 1", index));
  }
  o.party_index = static_cast<uint32_t>(v);
  if (!common::parse_count(dim, 2, vfl::kMaxMaskDim, &v)) {
    return common::usage_error(message, common::bad_value("dim", "2..4096", dim));
  }
  o.dim = static_cast<uint32_t>(v);
  if (out->bundle.empty() || out->features.empty() || out->pmg_key.empty() || out->ap_key.empty()) {
    return common::usage_error(message,
                               "--bundle, --features, --pmg-key and --ap-key are required");
  }
  if (o.key_dirs.size() != 1) return common::usage_error(message, "--keys: give one DIR");
  o.bundle = out->bundle;
  o.features = out->features;
  o.pmg_key = out->pmg_key;
  o.ap_key = out->ap_key;
  *out = std::move(o);
  return ParseOutcome::ok;
}

int run(const Options& opt, common::Logger& log) {
  vfl::PartyConfig cfg;
  cfg.party_index = opt.party_index;
  cfg.d = opt.dim;
  cfg.bundle_path = opt.bundle;
  cfg.features_path = opt.features;
  cfg.state_path = opt.store;
  std::string err, warning, pmg_fp, ap_fp, own_fp;
  if (!vfl::load_box_pair(opt.key_dirs[0], cfg.box_pk, cfg.box_sk, &warning, &err) ||
      !vfl::load_public_key(opt.pmg_key, cfg.pmg_sign_pk, &pmg_fp, &err) ||
      !vfl::load_public_key(opt.ap_key, cfg.ap_box_pk, &ap_fp, &err)) {
    log.error("keys_unreadable", {{"error", err}});
    return common::kExitConfig;
  }
  if (!warning.empty()) log.warn("secret_key_mode", {{"warning", warning}});
  p2b::keyfiles::fingerprint_hex(cfg.box_pk, &own_fp);
  vfl::PartyService service;
  const bool started = service.start(cfg, &err);
  sodium_memzero(cfg.box_sk, sizeof cfg.box_sk);
  if (!started) {
    log.error("start_failed", {{"error", err}});
    return common::kExitFailure;
  }
  common::ServiceHost host(opt, "p2b_vfl_party", log,
                           [](const httplib::Request& req) { return req.path == "/v1/masked"; });
  vfl::add_mask_check(host.readiness(), service);
  host.serve_metrics([&service](common::PrometheusText& out) {
    vfl::render_party_metrics(out, service.stats(), service.epoch());
  });
  httplib::Server& server = host.server();
  server.Post("/v1/masked", [&service, &log](const httplib::Request& req, httplib::Response& res) {
    const vfl::ServiceReply r = service.masked(req.body);
    if (!r.code.empty()) log.warn("request_refused", {{"error", r.code}, {"status", r.status}});
    vfl::answer(res, r);
  });
  vfl::serve_mask_reload(server, service, log, false);
  server.Get("/v1/stats", [&service](const httplib::Request&, httplib::Response& res) {
    const vfl::PartyStats s = service.stats();
    res.set_content(nlohmann::json{{"answered", s.answered},
                                   {"refused", s.refused},
                                   {"busy_ns", s.busy_ns},
                                   {"persist_ns", s.persist_ns}}
                        .dump(),
                    "application/json");
  });
  return host.run([&](int port) {
    log.info("started", {{"port", port},
                         {"party_index", opt.party_index},
                         {"dim", opt.dim},
                         {"epoch", service.epoch()},
                         {"mask_id", service.mask_id_hex()},
                         {"box_key_fingerprint", own_fp},
                         {"pmg_key_fingerprint", pmg_fp},
                         {"ap_key_fingerprint", ap_fp},
                         {"feature_rows", service.feature_rows()},
                         {"user_only", service.user_only()}});
  });
}

}  // namespace

int main(int argc, char** argv) {
  return p2b::common::service_main<Options>("p2b-vfl-party", argc, argv, parse_options, run);
}
