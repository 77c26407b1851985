#include "options.hpp"

#include <cstdint>
#include <utility>

#include "common/option_values.hpp"
#include "common/store_url.hpp"
#include "http_api.hpp"
#include "p2b/config.hpp"

namespace p2b::analyzer {

namespace {

using common::bad_value;
using common::given;
using common::usage_error;

constexpr int kDefaultPort = 8720;

// No default: without central DP, sybils who fill a victim's crowd read its
// report back from the model (docs/security.md), so the operator chooses.
constexpr const char* kChooseCentralDp =
    "choose central DP: --central-epsilon EPS (the models are then (EPS, delta)-DP per report "
    "over --central-horizon releases, against everyone who sees them, sybils included; the "
    "shipped configs use 1) or --central-epsilon off (sybils can read a victim's report back); "
    "in a --config file: central-epsilon = 1 or off. See docs/analyzer.md, \"Central "
    "differential privacy\", and p2b-analyzer(1)";

common::ServiceDefaults defaults() {
  common::ServiceDefaults d;
  d.listen_port = kDefaultPort;
  d.keys_help = "DIR holding analyzer.box.{pk,sk}; repeat to rotate, the last one signs";
  d.store_help =
      "sqlite:PATH or PATH (one file, created if missing) or postgresql://... (shared by the "
      "workers and the publisher)";
  d.max_body = batch_request_bytes(kDefaultMaxBatchRecords);
  d.min_body = server::kBatchHeaderBytes + kSignatureBytes;
  return d;
}

}  // namespace

Options::Options() {
  listen_port = kDefaultPort;
  max_body = batch_request_bytes(kDefaultMaxBatchRecords);
}

ParseOutcome parse_options(int argc, const char* const* argv, Options* out, std::string* message) {
  common::ServiceCommandLine cli(
      "p2b-analyzer",
      "usage: p2b-analyzer --keys DIR [--keys DIR ...] --shuffler-key FILE [--shuffler-key FILE "
      "...] --codebook FILE --store PATH --actions K [options]\n"
      "       p2b-analyzer backup STORE FILE   (an online copy of a live store)\n"
      "       p2b-analyzer retire-key --store PATH|URL --fingerprint HEX\n"
      "       p2b-analyzer quarantine list|retry|purge --store PATH [--reason R] "
      "[--older-than DAYS]\n"
      "                                        (the quarantined records; never their "
      "contents)",
      "Opens the shuffler's batches, aggregates per-arm statistics and serves signed warm-start "
      "models (docs/analyzer.md).",
      defaults());
  common::CommandLine& line = cli.command_line();
  std::string codebook, actions, lambda, mode, min_reports, model_ttl;
  bool raw = false;
  line.add_value("--codebook", &codebook,
                 "the devices' codebook; its fingerprint is in every model");
  line.add_value("--actions", &actions, "number of actions, 1.." + std::to_string(kMaxActions));
  CLI::Option* lambda_opt = line.add_value("--lambda", &lambda, "ridge prior, default 1");
  CLI::Option* mode_opt =
      line.add_value("--mode", &mode, "default (centroid contexts) or paper (scalar code)");
  cli.app().add_flag("--enable-raw-baseline", raw,
                     "serve POST /v1/raw (non-private, experiments only)");
  CLI::Option* min_opt = line.add_value("--min-reports", &min_reports,
                                        "withhold the private model until N reports back it (0)");
  CLI::Option* ttl_opt = line.add_value(
      "--model-ttl", &model_ttl, "devices refuse a model SECONDS after it was signed (0: never)");
  std::string key_list;
  line.add_value("--key-list", &key_list,
                 "serve this p2b-keylist file at GET /v1/keys (signed by this analyzer's key)");
  std::vector<std::string> shuffler_keys;
  cli.app()
      .add_option("--shuffler-key", shuffler_keys,
                  "a shuffler.sign.pk whose batches are accepted; repeat while a key rotates")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  std::string threshold;
  CLI::Option* threshold_opt = line.add_value(
      "--threshold", &threshold,
      "drop crowds with fewer than L valid reports in a batch (default 10, as the shuffler)");
  std::string noisy;
  CLI::Option* noisy_opt = line.add_value(
      "--noisy-threshold", &noisy,
      "Gaussian noise (sigma) on the valid crowd counts, as the shuffler's (0: off)");

  std::string max_quarantine;
  CLI::Option* quarantine_opt =
      line.add_value("--max-quarantine", &max_quarantine,
                     "records kept for a later start (unknown key, other shape); default 1000000");
  std::string dp_epsilon, dp_delta, dp_horizon;
  CLI::Option* dp_epsilon_opt =
      line.add_value("--central-epsilon", &dp_epsilon,
                     "required: EPS (central DP of the released models, per report over the "
                     "whole horizon; the shipped configs use 1) or off");
  CLI::Option* dp_delta_opt =
      line.add_value("--central-delta", &dp_delta, "central DP delta, default 1e-6");
  CLI::Option* dp_horizon_opt = line.add_value("--central-horizon", &dp_horizon,
                                               "private models the budget covers, default 1048576");

  std::string max_records;
  CLI::Option* max_records_opt = line.add_value(
      "--max-batch-records", &max_records,
      "refuse (413) a batch of more records, before decrypting it (default " +
          std::to_string(kDefaultMaxBatchRecords) + "); --max-body follows it unless given");

  std::string role, publish_seconds, publish_reports;
  CLI::Option* role_opt = line.add_value(
      "--role", &role,
      "all (default: one process), worker (applies batches) or publisher (signs models); "
      "worker and publisher need a postgresql:// store");
  CLI::Option* publish_seconds_opt =
      line.add_value("--publish-seconds", &publish_seconds,
                     "PostgreSQL: publish a model at most SECONDS after new reports (default 10)");
  CLI::Option* publish_reports_opt =
      line.add_value("--publish-reports", &publish_reports,
                     "PostgreSQL: publish as soon as M new reports are applied (0: off)");

  Options o;
  const ParseOutcome parsed = cli.parse(argc, argv, &o, message);
  if (parsed != ParseOutcome::ok) return parsed;
  o.key_list = key_list;
  const auto refuse = [message](std::string why) { return usage_error(message, std::move(why)); };
  if (codebook.empty()) return refuse("--codebook is required");
  o.codebook = codebook;
  if (actions.empty()) return refuse("--actions is required");
  uint64_t k = 0;
  if (!common::parse_count(actions, 1, kMaxActions, &k)) {
    return refuse(bad_value("actions", "1.." + std::to_string(kMaxActions), actions));
  }
  o.n_actions = static_cast<uint32_t>(k);
  // The device's own range for ridge_lambda, so every model it gets fits.
  if (given(lambda_opt) && !common::parse_real(lambda, 1e-6, 1e6, &o.lambda)) {
    return refuse(bad_value("lambda", "a number in [1e-6, 1e6]", lambda));
  }
  if (given(mode_opt) && !parse_mode(mode, &o.mode)) {
    return refuse(bad_value("mode", "default or paper", mode));
  }
  o.raw_enabled = raw;
  if (given(min_opt) && !common::parse_count(min_reports, 0, UINT64_MAX, &o.min_reports)) {
    return refuse(bad_value("min-reports", "a count of reports", min_reports));
  }
  // Up to ten years, so created + ttl cannot overflow.
  if (given(ttl_opt) && !common::parse_count(model_ttl, 0, 315360000, &o.model_ttl)) {
    return refuse(bad_value("model-ttl", "seconds, 0..315360000", model_ttl));
  }
  for (const std::string& f : shuffler_keys) {
    if (f.empty()) return refuse("--shuffler-key: empty file name");
  }
  if (shuffler_keys.empty()) return refuse("--shuffler-key is required");
  o.shuffler_keys = shuffler_keys;
  if (given(threshold_opt)) {
    uint64_t l = 0;
    if (!common::parse_count(threshold, 1, uint64_t{1} << 30, &l)) {
      return refuse(bad_value("threshold", "a count in 1..2^30", threshold));
    }
    o.threshold = static_cast<std::size_t>(l);
  }
  if (given(noisy_opt) && !common::parse_real(noisy, 0, 1e6, &o.noisy_threshold)) {
    return refuse(bad_value("noisy-threshold", "a sigma in [0, 1e6]", noisy));
  }
  if (given(quarantine_opt) &&
      !common::parse_count(max_quarantine, 0, uint64_t{1} << 32, &o.max_quarantine)) {
    return refuse(bad_value("max-quarantine", "a count in 0..2^32", max_quarantine));
  }
  if (!given(dp_epsilon_opt)) return refuse(kChooseCentralDp);
  if (dp_epsilon == "off") {
    o.central_epsilon = 0;
  } else if (!common::parse_real(dp_epsilon, 1e-6, 100, &o.central_epsilon)) {
    return refuse(bad_value("central-epsilon", "a number in [1e-6, 100], or off", dp_epsilon));
  }
  if (given(dp_delta_opt) && !common::parse_real(dp_delta, 1e-30, 0.01, &o.central_delta)) {
    return refuse(bad_value("central-delta", "a number in [1e-30, 0.01]", dp_delta));
  }
  if (given(dp_horizon_opt) &&
      !common::parse_count(dp_horizon, 1, uint64_t{1} << 40, &o.central_horizon)) {
    return refuse(bad_value("central-horizon", "a count in 1..2^40", dp_horizon));
  }
  if (given(max_records_opt)) {
    uint64_t m = 0;
    if (!common::parse_count(max_records, 1, server::kMaxBatchRecords, &m)) {
      return refuse(bad_value("max-batch-records", "1.." + std::to_string(server::kMaxBatchRecords),
                              max_records));
    }
    o.max_batch_records = static_cast<std::size_t>(m);
  }
  // The body bound follows the batch bound, so a larger batch is refused
  // from its Content-Length without being read.
  if (cli.app().get_option("--max-body")->count() == 0) {
    o.max_body = batch_request_bytes(o.max_batch_records);
  }
  try {
    o.store_url = common::parse_store_url(o.store);
  } catch (const std::invalid_argument& e) {
    return refuse(std::string("--store: ") + e.what());
  }
  if (given(role_opt) && !parse_role(role, &o.role)) {
    return refuse(bad_value("role", "all, worker or publisher", role));
  }
  if (given(publish_seconds_opt) &&
      !common::parse_real(publish_seconds, 0.01, 86400, &o.publish_seconds)) {
    return refuse(bad_value("publish-seconds", "seconds in [0.01, 86400]", publish_seconds));
  }
  if (given(publish_reports_opt) &&
      !common::parse_count(publish_reports, 0, uint64_t{1} << 40, &o.publish_reports)) {
    return refuse(bad_value("publish-reports", "a count in 0..2^40", publish_reports));
  }
  if (o.store_url.is_postgresql()) {
    if (o.raw_enabled) return refuse("--enable-raw-baseline needs a SQLite store");
  } else {
    if (o.role != Role::all)
      return refuse("--role worker and publisher need a postgresql:// store");
    if (given(publish_seconds_opt) || given(publish_reports_opt)) {
      return refuse("--publish-seconds and --publish-reports need a postgresql:// store");
    }
  }
  if (o.central_epsilon > 0 && o.mode == AggregationMode::paper) {
    return refuse(
        "--central-epsilon needs --mode default: paper mode's x = [code] has no bound; "
        "paper mode takes --central-epsilon off");
  }
  *out = std::move(o);
  return ParseOutcome::ok;
}

}  // namespace p2b::analyzer
