#include "shuffler/options.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/option_values.hpp"
#include "common/store_url.hpp"
#include "p2b/envelope.hpp"
#include "shuffler/analyzer_sink.hpp"
#include "shuffler/spool_key.hpp"
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
      "shuffler.sign.sk signs batches, an earlier one's only re-signs a batch it signed "
      "before a rotation";
  d.store_help =
      "sqlite:PATH or PATH (the SQLite spool file, created if missing; --spool is the same) or "
      "postgresql://... (a shared spool for several processes)";
  d.store_alias = "spool";
  d.max_body = 262144;
  d.min_body = kEnvelopeBytes;
  return d;
}

bool parse_batch_partitions(const std::string& text, Options* o) {
  o->batch_partitions.clear();
  o->batch_all = text == "all";
  if (o->batch_all || text == "none") return true;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
    uint64_t p = 0;
    if (!common::parse_count(item, 0, UINT32_MAX, &p)) return false;
    o->batch_partitions.push_back(static_cast<uint32_t>(p));
    if (comma == std::string::npos) return true;
    start = comma + 1;
  }
}

}  // namespace

ParseOutcome parse_options(int argc, const char* const* argv, Options* out, std::string* message) {
  common::ServiceCommandLine cli(
      "p2b-shuffler",
      "usage: p2b-shuffler --keys DIR [--keys DIR ...] --store PATH --analyzer URL "
      "--analyzer-key FILE [options]\n"
      "       p2b-shuffler retire-key --store URL --fingerprint HEX\n"
      "       p2b-shuffler spool rekey --store PATH --spool-key OLD --new-spool-key NEW\n"
      "       p2b-shuffler quarantine list|retry|purge --store URL [--reason R] "
      "[--older-than DAYS]\n"
      "                                        (the rows set aside as damaged; never their "
      "contents)",
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
  std::string partitions, batch_partitions, lease_seconds;
  CLI::Option* partitions_opt = line.add_value(
      "--partitions", &partitions,
      "PostgreSQL: partitions of a new store (fixed at creation; default: the store's, 1 if new)");
  CLI::Option* batch_opt = line.add_value(
      "--batch-partitions", &batch_partitions,
      "all, none or a list like 0,3,5: the partitions this process closes batches for, each "
      "under a lease (default all)");
  CLI::Option* lease_opt =
      line.add_value("--lease-seconds", &lease_seconds,
                     "a batcher's partition lease outlives its last renewal by this (default 30)");
  std::string spool_key;
  line.add_value("--spool-key", &spool_key,
                 "SQLite: the 32-byte key the spool is sealed under, outside the spool's "
                 "directory (p2b-keygen --shuffler-spool; default: the systemd credential "
                 "shuffler.spool.key)");
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
  try {
    const common::StoreUrl url = common::parse_store_url(o.store);
    o.store_url = url;
  } catch (const std::invalid_argument& e) {
    return refuse(e.what());
  }
  if (given(partitions_opt)) {
    if (!common::parse_count(partitions, 1, 1u << 16, &n)) {
      return refuse(bad_value("partitions", "1..65536", partitions));
    }
    if (!o.store_url.is_postgresql()) {
      return refuse("--partitions is for a PostgreSQL store; a SQLite spool has one (--partition)");
    }
    o.partitions = static_cast<uint32_t>(n);
  }
  if (o.store_url.is_postgresql() && !spool_key.empty()) {
    return refuse(
        "--spool-key is for a SQLite spool; a PostgreSQL spool is encrypted by its volume "
        "(docs/operations.md)");
  }
  if (!o.store_url.is_postgresql()) {
    o.spool_key = spool_key.empty() ? spool_key_credential() : spool_key;
    if (o.spool_key.empty()) {
      return refuse(
          "a SQLite spool needs its key: make one outside the spool's directory with "
          "`p2b-keygen --shuffler-spool --out /etc/p2b/shuffler-spool` and give "
          "--spool-key /etc/p2b/shuffler-spool/shuffler.spool.key (or the systemd credential "
          "shuffler.spool.key)");
    }
  }
  if (given(batch_opt) && !parse_batch_partitions(batch_partitions, &o)) {
    return refuse(bad_value("batch-partitions", "all, none or partition numbers like 0,3,5",
                            batch_partitions));
  }
  if (given(lease_opt) && !common::parse_real(lease_seconds, 1, 3600, &o.lease_seconds)) {
    return refuse(bad_value("lease-seconds", "seconds in [1, 3600]", lease_seconds));
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
