// p2b-analyzer: see docs/analyzer.md for the command line and the HTTP API,
// docs/operations.md for exit codes, signals and logs.
#include <httplib.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "analyzer.hpp"
#include "codebook_file.hpp"
#include "common/bounded_server.hpp"
#include "common/exit_codes.hpp"
#include "common/http_server.hpp"
#include "common/json_log.hpp"
#include "common/keyfiles.hpp"
#include "common/readiness.hpp"
#include "common/service_main.hpp"
#include "common/shutdown.hpp"
#include "common/store_backup.hpp"
#include "common/store_open.hpp"
#include "http_api.hpp"
#include "key_ring.hpp"
#include "metrics.hpp"
#include "options.hpp"
#include "sqlite_store.hpp"
#include "stats_mac.hpp"

namespace {

using p2b::common::kExitFailure;
using p2b::common::kExitStoreRefused;

// `p2b-analyzer backup STORE FILE`: an online copy of a live store
// (docs/operations.md, "Backup and restore").
int backup(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: p2b-analyzer backup STORE FILE\n");
    return p2b::common::kExitUsage;
  }
  try {
    p2b::common::backup_store(argv[2], argv[3]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "p2b-analyzer backup: %s\n", e.what());
    return kExitFailure;
  }
  return p2b::common::kExitClean;
}

int serve(const p2b::analyzer::Options& opt, p2b::common::Logger& log) {
  using namespace p2b::analyzer;
  std::vector<std::string> warnings;
  KeyRing keys;
  Codebook codebook;
  std::unique_ptr<SqliteModelStore> store;
  StatsMacKeys mac_keys;
  try {
    keys = KeyRing::load(opt.key_dirs, &warnings);
    mac_keys = StatsMacKeys::load(opt.key_dirs, nullptr);
  } catch (const std::exception& e) {
    log.error("keys_unreadable", {{"error", e.what()}});
    return kExitFailure;
  }
  for (const std::string& w : warnings) log.warn("secret_key_mode", {{"warning", w}});
  std::unique_ptr<ServedKeyList> key_list;
  if (!opt.key_list.empty()) {
    try {
      key_list = std::make_unique<ServedKeyList>(load_key_list_file(opt.key_list, keys.sign_sk()));
    } catch (const std::exception& e) {
      log.error("key_list_unusable", {{"error", e.what()}});
      return kExitFailure;
    }
    log.info("key_list", {{"version", key_list->version},
                          {"current_key", key_list->current_fp},
                          {"not_after_unix", key_list->not_after_unix}});
  }
  std::vector<p2b::server::VerifyKey> shuffler_keys;
  std::vector<std::string> shuffler_fps;
  for (const std::string& path : opt.shuffler_keys) {
    uint8_t pk[p2b::kPublicKeyBytes];
    std::string err;
    p2b::server::VerifyKey key{};
    if (!p2b::keyfiles::read_key_file(path, pk, sizeof pk, &err) ||
        !p2b::server::make_verify_key(pk, &key)) {
      log.error("keys_unreadable", {{"error", err.empty() ? path + ": unusable key" : err}});
      return kExitFailure;
    }
    shuffler_keys.push_back(key);
    shuffler_fps.push_back(p2b::server::hex_of(key.fp, sizeof key.fp));
  }
  try {
    codebook = load_codebook_file(opt.codebook);
  } catch (const std::exception& e) {
    log.error("codebook_unreadable", {{"error", e.what()}});
    return kExitFailure;
  }
  const std::vector<std::string> box_fps = keys.box_fingerprints();
  const std::string verify_fp = keys.verify_key_fingerprint();
  Metrics metrics;
  std::unique_ptr<Analyzer> analyzer;
  try {
    store = std::make_unique<SqliteModelStore>(opt.store, std::move(mac_keys));
    AnalyzerSettings settings;
    settings.mode = opt.mode;
    settings.n_actions = opt.n_actions;
    settings.lambda = opt.lambda;
    settings.raw_enabled = opt.raw_enabled;
    settings.min_reports = opt.min_reports;
    settings.model_ttl = opt.model_ttl;
    settings.shuffler_keys = shuffler_keys;
    settings.threshold = opt.threshold;
    settings.threshold_noise = opt.noisy_threshold;
    settings.max_quarantine = opt.max_quarantine;
    settings.central_dp =
        CentralDpConfig{opt.central_epsilon, opt.central_delta, opt.central_horizon};
    analyzer = std::make_unique<Analyzer>(std::move(settings), codebook, std::move(keys),
                                          store.get(), &metrics, &log);
  } catch (const p2b::common::StoreRefused& e) {
    log.error("store_refused", {{"error", e.what()}});
    return kExitStoreRefused;
  } catch (const std::exception& e) {
    log.error("store_unusable", {{"error", e.what()}});
    return kExitFailure;
  }
  metrics.set_store_health(store->health());
  p2b::common::Readiness readiness;
  readiness.add("storage", [&store] { return store->health()->check(); });
  const auto version = [&](ModelKind k) {
    const auto m = analyzer->model(k);
    return m ? m->version : uint64_t{0};
  };
  log.info("started", {{"mode", mode_name(opt.mode)},
                       {"dim", analyzer->dim()},
                       {"actions", analyzer->n_actions()},
                       {"codes", codebook.info.k},
                       {"lambda", opt.lambda},
                       {"raw_baseline", opt.raw_enabled},
                       {"max_body", opt.max_body},
                       {"max_batch_records", opt.max_batch_records},
                       {"box_keys", box_fps},
                       {"verify_key", verify_fp},
                       {"shuffler_keys", shuffler_fps},
                       {"threshold", opt.threshold},
                       {"noisy_threshold", opt.noisy_threshold},
                       {"model_version", version(ModelKind::private_reports)},
                       {"raw_model_version", version(ModelKind::raw_baseline)}});
  if (const CentralDp* dp = analyzer->central_dp()) {
    // The budget and its noise scale; the seed is never logged.
    log.info("central_dp", {{"epsilon", dp->config().epsilon},
                            {"delta", dp->config().delta},
                            {"horizon", dp->config().horizon},
                            {"levels", dp->levels()},
                            {"sigma", dp->sigma()},
                            {"releases_left", analyzer->central_releases_left()}});
  }

  readiness.add("keys", [fps = "box " + nlohmann::json(box_fps).dump() + ", verify " + verify_fp] {
    return p2b::common::check_ok(fps);
  });
  readiness.add("publisher", [&analyzer, &version] {
    const std::string served =
        "served version " + std::to_string(version(ModelKind::private_reports));
    return analyzer->last_publish_ok()
               ? p2b::common::check_ok(served)
               : p2b::common::check_failed("the last model signing or commit failed; " + served);
  });
  p2b::common::BoundedServer server(opt.http, metrics.http());
  install_routes(&server, analyzer.get(), &metrics, &log, opt.max_body, opt.max_batch_records,
                 &readiness, opt.access_log);
  serve_key_list(&server, key_list.get());
  if (p2b::common::bind_and_announce(server, opt.listen_host, opt.listen_port, log) < 0) {
    return kExitFailure;
  }
  const p2b::common::StopOutcome outcome = p2b::common::serve_until_stopped(server, log);
  analyzer.reset();
  store.reset();  // closes the database, which checkpoints the WAL
  return p2b::common::finish_stop(outcome, log);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "backup") == 0) return backup(argc, argv);
  return p2b::common::service_main<p2b::analyzer::Options>("p2b-analyzer", argc, argv,
                                                           p2b::analyzer::parse_options, serve);
}
