// p2b-shuffler: receives sealed report envelopes, strips everything about
// their senders, and forwards shuffled, thresholded batches of the inner
// ciphertexts to the analyzer (docs/shuffler.md). Exit codes, signals and
// logs: docs/operations.md.
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "common/bounded_server.hpp"
#include "common/exit_codes.hpp"
#include "common/http_server.hpp"
#include "common/json_log.hpp"
#include "common/keyfiles.hpp"
#include "common/readiness.hpp"
#include "common/secret_keys.hpp"
#include "common/service_main.hpp"
#include "common/service_metrics.hpp"
#include "common/shutdown.hpp"
#include "common/store_open.hpp"
#include "shuffler/batcher.hpp"
#include "shuffler/disk_guard.hpp"
#include "shuffler/http_api.hpp"
#include "shuffler/intake.hpp"
#include "shuffler/options.hpp"
#include "shuffler/quarantine_main.hpp"
#include "shuffler/readiness_checks.hpp"
#include "shuffler/retire_key.hpp"
#include "shuffler/sign_keys.hpp"
#include "shuffler/spool_command.hpp"
#include "shuffler/spool_factory.hpp"

namespace {

using p2b::common::kExitFailure;

int fail(p2b::common::Logger& log, const char* event, const std::string& why,
         int code = kExitFailure) {
  log.error(event, {{"error", why}});
  return code;
}

int run(const p2b::shuffler::Options& opt, p2b::common::Logger& log) {
  namespace sh = p2b::shuffler;
  p2b::common::LoadedBoxKeys keys;
  // New batches are signed by the newest key set only, like the analyzer's
  // models; the earlier sets' keys only re-sign batches they signed before.
  sh::SignKeys sign_keys;
  try {
    keys = p2b::common::load_box_keys(opt.key_dirs, "shuffler.box");
    sign_keys = sh::load_sign_keys(opt.key_dirs, &keys.warnings);
  } catch (const std::exception& e) {
    return fail(log, "keys_unreadable", e.what(), p2b::common::kExitConfig);
  }
  for (const std::string& w : keys.warnings) log.warn("secret_key_mode", {{"warning", w}});
  uint8_t analyzer_pk[p2b::kPublicKeyBytes];
  std::string err, analyzer_fp;
  if (!p2b::keyfiles::read_key_file(opt.analyzer_key, analyzer_pk, sizeof analyzer_pk, &err) ||
      !p2b::keyfiles::fingerprint_hex(analyzer_pk, &analyzer_fp)) {
    return fail(log, "keys_unreadable", err.empty() ? "cannot fingerprint the analyzer key" : err,
                p2b::common::kExitConfig);
  }

  const auto lease_ttl =
      std::chrono::milliseconds(static_cast<long long>(opt.lease_seconds * 1000));
  sh::OpenedSpool opened;
  try {
    sh::SpoolOptions spool_options;
    spool_options.postgresql = opt.store_url.is_postgresql();
    spool_options.target = opt.store_url.target;
    spool_options.sqlite_partition = opt.partition;
    spool_options.partitions = opt.partitions;
    spool_options.lease_ttl = lease_ttl;
    if (!opt.store_url.is_postgresql()) {
      spool_options.sqlite_key = std::make_shared<const sh::SpoolKey>(
          sh::load_spool_key(opt.spool_key, opt.store_url.target));
    }
    opened = sh::open_spool(spool_options);
  } catch (const sh::SpoolKeyRefused& e) {
    // A configuration error: the key is missing, misplaced or not this
    // spool's. The message names the file, never its bytes.
    log.error("spool_key_refused", {{"error", e.what()}, {"store", opt.store_url.describe()}});
    return p2b::common::kExitUsage;
  } catch (const p2b::common::StoreRefused& e) {
    log.error("store_refused", {{"error", e.what()}, {"store", opt.store_url.describe()}});
    return p2b::common::kExitStoreRefused;
  } catch (const sh::SpoolError& e) {
    return fail(log, "store_unusable", e.what());
  }
  std::unique_ptr<sh::Spool>& spool = opened.spool;
  p2b::common::Readiness readiness;
  readiness.add("storage", opened.storage_check);
  const std::unique_ptr<sh::AnalyzerSink> sink = sh::make_http_sink(opt.analyzer);

  // One batcher per partition this process closes: each holds its
  // partition's lease, so processes that name the same partitions take
  // turns rather than close the same crowd twice.
  const std::vector<uint32_t> all_partitions = spool->partitions();
  std::vector<uint32_t> batched = opt.batch_all ? all_partitions : opt.batch_partitions;
  for (const uint32_t p : batched) {
    if (std::find(all_partitions.begin(), all_partitions.end(), p) == all_partitions.end()) {
      return fail(log, "bad_partition",
                  "--batch-partitions names partition " + std::to_string(p) +
                      ", which the store does not have");
    }
  }
  sh::Metrics metrics;
  try {
    metrics.quarantined = spool->quarantine_size();
  } catch (const sh::SpoolError& e) {
    return fail(log, "store_unusable", e.what());
  }
  std::vector<std::unique_ptr<sh::Batcher>> batchers;
  for (const uint32_t p : batched) {
    sh::BatchingPolicy policy;
    policy.batch_size = opt.batch_size;
    policy.interval = std::chrono::milliseconds(static_cast<long long>(opt.batch_seconds * 1000));
    policy.threshold.threshold = opt.threshold;
    policy.threshold.noise_sigma = opt.noisy_threshold;
    policy.partition = p;
    policy.lease_ttl = lease_ttl;
    batchers.push_back(std::make_unique<sh::Batcher>(
        *spool, *sink, metrics, policy,
        sh::BatchKeys{sign_keys.current.data(), analyzer_pk, sign_keys.previous_pointers()}));
  }
  // Free disk is the SQLite file's concern; a PostgreSQL server watches its own.
  std::unique_ptr<sh::DiskGuard> disk;
  if (!opt.store_url.is_postgresql()) {
    disk = std::make_unique<sh::DiskGuard>(opt.store_url.target, opt.min_free_disk, metrics);
  }
  // Each key held is an epoch of replay state; a retired one must never
  // come back into service (its replays could no longer be recognised).
  std::unique_ptr<sh::ReportIntake> intake;
  try {
    intake = std::make_unique<sh::ReportIntake>(
        std::move(keys.keys), *spool, metrics, opt.max_body,
        [&batchers](std::size_t n) {
          for (const auto& b : batchers) b->notify_stored(n);
        },
        disk.get());
  } catch (const sh::EpochRetired& e) {
    return fail(log, "key_retired", e.what());
  } catch (const sh::SpoolError& e) {
    return fail(log, "store_unusable", e.what());
  }
  readiness.add("keys", [fps = nlohmann::json(keys.fingerprints).dump()] {
    return p2b::common::check_ok("box " + fps);
  });
  const auto grace = std::chrono::milliseconds(static_cast<long long>(opt.delivery_grace * 1000));
  for (const auto& b : batchers) {
    const std::string suffix = batchers.size() > 1 ? "_" + std::to_string(b->partition()) : "";
    sh::Batcher* batcher = b.get();
    readiness.add("batcher" + suffix, [batcher] { return sh::batcher_check(batcher->status()); });
    readiness.add("delivery" + suffix,
                  [batcher, grace] { return sh::delivery_check(batcher->status(), grace); });
  }
  if (disk) readiness.add("disk", [&disk] { return sh::disk_check(*disk); });
  if (spool->has_quarantine()) {
    readiness.add("quarantine",
                  [&metrics] { return sh::quarantine_check(metrics.quarantined.load()); });
  }

  p2b::common::BoundedServer server(opt.http, metrics.http);
  // Latency, process and build-info families, appended to /metrics.
  p2b::common::ServiceMetrics service_metrics("p2b_shuffler");
  service_metrics.attach(server);
  sh::install_routes(server, *intake, metrics, *spool, opt.max_body, &readiness, opt.access_log);
  if (opt.access_log == p2b::common::AccessLog::all) {
    log.warn("access_log_all", {{"note", "every report post is logged with its time"}});
  }
  const int port = p2b::common::bind_and_announce(server, opt.listen_host, opt.listen_port, log);
  if (port < 0) return kExitFailure;
  log.info("started",
           {{"port", port},
            {"key_fingerprints", keys.fingerprints},
            {"sign_key_fingerprint", p2b::common::verify_key_fingerprint(sign_keys.current.data())},
            {"previous_sign_key_fingerprints", sign_keys.previous_fingerprints},
            {"analyzer_key_fingerprint", analyzer_fp},
            {"store", opt.store_url.describe()},
            {"partitions", all_partitions.size()},
            {"batch_partitions", batched},
            {"batch_size", opt.batch_size},
            {"batch_seconds", opt.batch_seconds},
            {"threshold", opt.threshold},
            {"noisy_threshold", opt.noisy_threshold},
            {"max_body", opt.max_body},
            {"min_free_disk", opt.min_free_disk},
            {"spool_depth", spool->depth()}});
  for (const auto& b : batchers) b->start();
  const p2b::common::StopOutcome outcome = p2b::common::serve_until_stopped(server, log);
  for (const auto& b : batchers) b->stop();
  spool.reset();  // closes the database, which checkpoints the WAL
  return p2b::common::finish_stop(outcome, log);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "retire-key") {
    return p2b::shuffler::retire_key_main(argc - 1, argv + 1);
  }
  if (argc > 1 && std::string(argv[1]) == "spool") {
    return p2b::shuffler::spool_command_main(argc - 1, argv + 1);
  }
  if (argc > 1 && std::string(argv[1]) == "quarantine") {
    return p2b::shuffler::quarantine_main(argc - 1, argv + 1);
  }
  return p2b::common::service_main<p2b::shuffler::Options>("p2b-shuffler", argc, argv,
                                                           p2b::shuffler::parse_options, run);
}
