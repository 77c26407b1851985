// p2b-analyzer: see docs/analyzer.md for the command line and the HTTP API,
// docs/operations.md for exit codes, signals and logs.
#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
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
#include "common/service_metrics.hpp"
#include "common/shutdown.hpp"
#include "common/store_backup.hpp"
#include "common/store_open.hpp"
#include "http_api.hpp"
#include "key_ring.hpp"
#include "metrics.hpp"
#include "options.hpp"
#include "pg_node.hpp"
#include "pg_store.hpp"
#include "quarantine_check.hpp"
#include "quarantine_main.hpp"
#include "sqlite_store.hpp"
#include "stats_mac.hpp"

namespace {

using p2b::common::kExitConfig;
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

// `p2b-analyzer retire-key --store PATH|URL --fingerprint HEX`: drops the
// replay state of one analyzer box key (docs/analyzer.md, "Epochs").
int retire_key(int argc, char** argv) {
  using namespace p2b::analyzer;
  std::string store, fingerprint;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--store") {
      store = argv[i + 1];
    } else if (flag == "--fingerprint") {
      fingerprint = argv[i + 1];
    } else {
      store.clear();
      break;
    }
  }
  Epoch epoch{};
  if (argc != 6 || store.empty() || !parse_epoch(fingerprint, &epoch)) {
    std::fprintf(stderr,
                 "usage: p2b-analyzer retire-key --store PATH|URL --fingerprint HEX\n"
                 "  HEX: the 32 hex digits p2b-keygen printed for analyzer.box.pk\n");
    return p2b::common::kExitUsage;
  }
  const auto now = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                             std::chrono::system_clock::now().time_since_epoch())
                                             .count());
  try {
    const p2b::common::StoreUrl url = p2b::common::parse_store_url(store);
    const uint64_t dropped = url.is_postgresql()
                                 ? PgAnalyzerStore::retire_epoch(url.target, epoch, now)
                                 : SqliteModelStore::retire_epoch(url.target, epoch, now);
    std::printf("retired %s: %llu digests dropped\n", fingerprint.c_str(),
                static_cast<unsigned long long>(dropped));
  } catch (const p2b::common::StoreRefused& e) {
    std::fprintf(stderr, "p2b-analyzer retire-key: %s\n", e.what());
    return kExitStoreRefused;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "p2b-analyzer retire-key: %s\n", e.what());
    return kExitFailure;
  }
  return p2b::common::kExitClean;
}

// The --shuffler-key files as verify keys; false (logged) if one is unusable.
bool read_shuffler_keys(const p2b::analyzer::Options& opt, p2b::common::Logger& log,
                        std::vector<p2b::server::VerifyKey>* keys, std::vector<std::string>* fps) {
  for (const std::string& path : opt.shuffler_keys) {
    uint8_t pk[p2b::kPublicKeyBytes];
    std::string err;
    p2b::server::VerifyKey key{};
    if (!p2b::keyfiles::read_key_file(path, pk, sizeof pk, &err) ||
        !p2b::server::make_verify_key(pk, &key)) {
      log.error("keys_unreadable", {{"error", err.empty() ? path + ": unusable key" : err}});
      return false;
    }
    keys->push_back(key);
    fps->push_back(p2b::server::hex_of(key.fp, sizeof key.fp));
  }
  return true;
}

// A worker or publisher (or both) on PostgreSQL (docs/analyzer.md, "Roles").
int serve_postgresql(const p2b::analyzer::Options& opt, p2b::common::Logger& log) {
  using namespace p2b::analyzer;
  std::vector<std::string> warnings;
  KeyRing worker_keys;
  p2b::common::SecureArray<uint8_t> model_sk;
  try {
    if (opt.role == Role::worker) {
      // The model signing key stays with the publisher.
      for (const std::string& dir : opt.key_dirs) {
        if (std::filesystem::exists(dir + "/analyzer.sign.sk")) {
          log.error("keys_refused",
                    {{"error", dir + "/analyzer.sign.sk: a worker must not hold the model "
                                     "signing key; give it analyzer.ack.sk (docs/keys.md)"}});
          return kExitConfig;
        }
      }
    }
    if (opt.role != Role::publisher) {
      worker_keys = KeyRing::load_with_signer(
          opt.key_dirs, opt.role == Role::worker ? "analyzer.ack.sk" : "analyzer.sign.sk",
          &warnings);
    }
    if (opt.role != Role::worker) {
      model_sk = p2b::common::load_sign_key(opt.key_dirs.back() + "/analyzer.sign.sk", &warnings);
    }
  } catch (const std::exception& e) {
    log.error("keys_unreadable", {{"error", e.what()}});
    return kExitConfig;
  }
  for (const std::string& w : warnings) log.warn("secret_key_mode", {{"warning", w}});
  std::vector<p2b::server::VerifyKey> shuffler_keys;
  std::vector<std::string> shuffler_fps;
  if (!read_shuffler_keys(opt, log, &shuffler_keys, &shuffler_fps)) return kExitConfig;
  Codebook codebook;
  try {
    codebook = load_codebook_file(opt.codebook);
  } catch (const std::exception& e) {
    log.error("codebook_unreadable", {{"error", e.what()}});
    return kExitConfig;
  }
  const std::vector<std::string> box_fps = worker_keys.box_fingerprints();
  const std::string signer_fp = opt.role == Role::publisher
                                    ? p2b::common::verify_key_fingerprint(model_sk.data())
                                    : worker_keys.verify_key_fingerprint();
  Metrics metrics;
  std::unique_ptr<PgAnalyzerStore> store;
  std::unique_ptr<PgNode> node;
  try {
    const FeatureMap features(opt.mode, codebook);
    store = std::make_unique<PgAnalyzerStore>(
        opt.store_url.target,
        StoreIdentity{features.dim(), codebook.info.dim, opt.n_actions, mode_name(opt.mode),
                      p2b::server::hex_of(codebook.info.fingerprint, p2b::kFingerprintBytes)});
    PgNodeSettings settings;
    settings.role = opt.role;
    settings.analyzer.mode = opt.mode;
    settings.analyzer.n_actions = opt.n_actions;
    settings.analyzer.lambda = opt.lambda;
    settings.analyzer.min_reports = opt.min_reports;
    settings.analyzer.model_ttl = opt.model_ttl;
    settings.analyzer.shuffler_keys = shuffler_keys;
    settings.analyzer.threshold = opt.threshold;
    settings.analyzer.threshold_noise = opt.noisy_threshold;
    settings.analyzer.max_quarantine = opt.max_quarantine;
    settings.analyzer.central_dp =
        CentralDpConfig{opt.central_epsilon, opt.central_delta, opt.central_horizon};
    settings.publish_seconds = opt.publish_seconds;
    settings.publish_reports = opt.publish_reports;
    node = std::make_unique<PgNode>(std::move(settings), codebook, std::move(worker_keys),
                                    std::move(model_sk), store.get(), &metrics, &log);
  } catch (const p2b::common::StoreRefused& e) {
    log.error("store_refused", {{"error", e.what()}, {"store", opt.store_url.describe()}});
    return kExitStoreRefused;
  } catch (const std::exception& e) {
    log.error("store_unusable", {{"error", e.what()}, {"store", opt.store_url.describe()}});
    return kExitFailure;
  }
  log.info("started", {{"role", role_name(opt.role)},
                       {"store", opt.store_url.describe()},
                       {"mode", mode_name(opt.mode)},
                       {"dim", node->dim()},
                       {"actions", node->n_actions()},
                       {"box_keys", box_fps},
                       {"signer", signer_fp},
                       {"shuffler_keys", shuffler_fps},
                       {"threshold", opt.threshold},
                       {"publish_seconds", opt.publish_seconds},
                       {"publish_reports", opt.publish_reports}});
  p2b::common::Readiness readiness;
  readiness.add("database", [&node] {
    return node->database_ok()
               ? p2b::common::check_ok("the model refresh reached the database")
               : p2b::common::check_failed("the model refresh has not reached the database");
  });
  if (opt.role != Role::worker) {
    readiness.add("publisher", [&node] {
      if (!node->last_publish_ok()) return p2b::common::check_failed("the last publication failed");
      return p2b::common::check_ok(node->leading() ? "leading" : "standby");
    });
  }
  p2b::common::BoundedServer server(opt.http, metrics.http());
  // Latency, process and build-info families, appended to /metrics.
  p2b::common::ServiceMetrics service_metrics("p2b_analyzer");
  service_metrics.attach(server);
  install_routes(&server, node.get(), &metrics, &log, opt.max_body, opt.max_batch_records,
                 &readiness, opt.access_log);
  if (p2b::common::bind_and_announce(server, opt.listen_host, opt.listen_port, log) < 0) {
    return kExitFailure;
  }
  const p2b::common::StopOutcome outcome = p2b::common::serve_until_stopped(server, log);
  node.reset();
  store.reset();
  return p2b::common::finish_stop(outcome, log);
}

int serve(const p2b::analyzer::Options& opt, p2b::common::Logger& log) {
  using namespace p2b::analyzer;
  if (opt.store_url.is_postgresql()) return serve_postgresql(opt, log);
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
    return kExitConfig;
  }
  for (const std::string& w : warnings) log.warn("secret_key_mode", {{"warning", w}});
  std::unique_ptr<ServedKeyList> key_list;
  if (!opt.key_list.empty()) {
    try {
      key_list = std::make_unique<ServedKeyList>(load_key_list_file(opt.key_list, keys.sign_sk()));
    } catch (const std::exception& e) {
      log.error("key_list_unusable", {{"error", e.what()}});
      return kExitConfig;
    }
    log.info("key_list", {{"version", key_list->version},
                          {"current_key", key_list->current_fp},
                          {"not_after_unix", key_list->not_after_unix}});
  }
  std::vector<p2b::server::VerifyKey> shuffler_keys;
  std::vector<std::string> shuffler_fps;
  if (!read_shuffler_keys(opt, log, &shuffler_keys, &shuffler_fps)) return kExitConfig;
  try {
    codebook = load_codebook_file(opt.codebook);
  } catch (const std::exception& e) {
    log.error("codebook_unreadable", {{"error", e.what()}});
    return kExitConfig;
  }
  const std::vector<std::string> box_fps = keys.box_fingerprints();
  const std::string verify_fp = keys.verify_key_fingerprint();
  Metrics metrics;
  std::unique_ptr<Analyzer> analyzer;
  try {
    store = std::make_unique<SqliteModelStore>(opt.store_url.target, std::move(mac_keys));
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
  readiness.add("quarantine", [&metrics, max = opt.max_quarantine] {
    return quarantine_check(metrics.quarantine_size(), max);
  });
  p2b::common::BoundedServer server(opt.http, metrics.http());
  // Latency, process and build-info families, appended to /metrics.
  p2b::common::ServiceMetrics service_metrics("p2b_analyzer");
  service_metrics.attach(server);
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
  if (argc > 1 && std::strcmp(argv[1], "retire-key") == 0) return retire_key(argc, argv);
  if (argc > 1 && std::strcmp(argv[1], "quarantine") == 0) {
    return p2b::analyzer::quarantine_main(argc - 1, argv + 1);
  }
  return p2b::common::service_main<p2b::analyzer::Options>("p2b-analyzer", argc, argv,
                                                           p2b::analyzer::parse_options, serve);
}
