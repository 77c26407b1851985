#include "shuffler/options.hpp"

#include <cstdint>
#include <utility>

#include "common/option_values.hpp"
#include "p2b/envelope.hpp"
#include "shuffler/analyzer_sink.hpp"
#include "wire/batch_format.hpp"

namespace p2b::shuffler {

namespace {

using common::bad_value;
using common::given;
using common::usage_error;

common::ServiceDefaults defaults() {
  common::ServiceDefaults d;
  d.listen_port = 8710;
  d.keys_help =
      "DIR holding shuffler.box.{pk,sk}; repeat to accept several keys; the last one's "
      "shuffler.sign.sk signs batches";
  d.store_help = "the SQLite spool file, created if missing (--spool is the same)";
  d.store_alias = "spool";
  d.max_body = 262144;
  d.min_body = kEnvelopeBytes;
  return d;
}

}  // namespace

ParseOutcome parse_options(int argc, const char* const* argv, Options* out, std::string* message) {
  common::ServiceCommandLine cli(
      "p2b-shuffler",
      "usage: p2b-shuffler --keys DIR [--keys DIR ...] --store PATH --analyzer URL "
      "--analyzer-key FILE [options]",
      "Receives sealed report envelopes, strips everything about their senders, and forwards "
      "shuffled, thresholded batches to the analyzer (docs/shuffler.md).",
      defaults());
  common::CommandLine& line = cli.command_line();
  std::string analyzer, batch_size, batch_seconds, threshold, noisy;
  line.add_value("--analyzer", &analyzer, "batches go to URL/v1/batches");
  CLI::Option* size_opt =
      line.add_value("--batch-size", &batch_size, "close a batch after N records (default 1000)");
  CLI::Option* seconds_opt =
      line.add_value("--batch-seconds", &batch_seconds, "... or after T seconds (default 10)");
  CLI::Option* threshold_opt = line.add_value(
      "--threshold", &threshold, "drop crowds with fewer than L records in a batch (default 10)");
  CLI::Option* noisy_opt = line.add_value("--noisy-threshold", &noisy,
                                          "Gaussian noise on the crowd counts (default 0: off)");
  std::string analyzer_key, partition;
  line.add_value("--analyzer-key", &analyzer_key,
                 "the analyzer's analyzer.sign.pk: only acks it signed delete a batch");
  CLI::Option* partition_opt =
      line.add_value("--partition", &partition, "partition number written into batches (0)");
  std::string min_free, grace;
  CLI::Option* min_free_opt = line.add_value(
      "--min-free-disk", &min_free,
      "refuse new reports (507) while the spool's disk has fewer bytes free (default 64 MiB)");
  CLI::Option* grace_opt = line.add_value(
      "--delivery-grace", &grace, "/readyz fails after delivery failed this long (default 300 s)");

  Options o;
  const ParseOutcome parsed = cli.parse(argc, argv, &o, message);
  if (parsed != ParseOutcome::ok) return parsed;
  const auto refuse = [message](std::string why) { return usage_error(message, std::move(why)); };
  if (analyzer.empty()) return refuse("--analyzer is required");
  if (!valid_analyzer_url(analyzer)) {
    return refuse(bad_value("analyzer", "http(s)://host[:port][/prefix]", analyzer));
  }
  o.analyzer = analyzer;
  uint64_t n = 0;
  if (given(size_opt)) {
    if (!common::parse_count(batch_size, 1, server::kMaxBatchRecords, &n)) {
      return refuse(
          bad_value("batch-size", "1.." + std::to_string(server::kMaxBatchRecords), batch_size));
    }
    o.batch_size = static_cast<std::size_t>(n);
  }
  if (given(seconds_opt) && !common::parse_real(batch_seconds, 0.001, 86400, &o.batch_seconds)) {
    return refuse(bad_value("batch-seconds", "seconds in [0.001, 86400]", batch_seconds));
  }
  if (given(threshold_opt)) {
    if (!common::parse_count(threshold, 1, uint64_t{1} << 30, &n)) {
      return refuse(bad_value("threshold", "a count in 1..2^30", threshold));
    }
    o.threshold = static_cast<std::size_t>(n);
  }
  if (given(noisy_opt) && !common::parse_real(noisy, 0, 1e6, &o.noisy_threshold)) {
    return refuse(bad_value("noisy-threshold", "a sigma in [0, 1e6]", noisy));
  }
  if (analyzer_key.empty()) return refuse("--analyzer-key is required");
  o.analyzer_key = analyzer_key;
  if (given(partition_opt)) {
    if (!common::parse_count(partition, 0, UINT32_MAX, &n)) {
      return refuse(bad_value("partition", "0..2^32-1", partition));
    }
    o.partition = static_cast<uint32_t>(n);
  }
  if (given(min_free_opt) &&
      !common::parse_count(min_free, 0, uint64_t{1} << 60, &o.min_free_disk)) {
    return refuse(bad_value("min-free-disk", "bytes in 0..2^60", min_free));
  }
  if (given(grace_opt) && !common::parse_real(grace, 0, 86400 * 30, &o.delivery_grace)) {
    return refuse(bad_value("delivery-grace", "seconds in [0, 2592000]", grace));
  }
  *out = std::move(o);
  return ParseOutcome::ok;
}

}  // namespace p2b::shuffler
