// The shuffler's command line and config file: the settings shared with the
// analyzer (common/service_options.hpp, docs/operations.md) plus its own.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/service_options.hpp"
#include "common/store_url.hpp"

namespace p2b::shuffler {

struct Options : common::ServiceOptions {
  Options() {
    listen_port = 8710;
    max_body = 262144;
  }
  std::string analyzer;
  std::size_t batch_size = 1000;
  double batch_seconds = 10;
  std::size_t threshold = 10;
  double noisy_threshold = 0;  // sigma of the threshold noise; 0 = off
  std::string analyzer_key;    // the analyzer.sign.pk that acks must verify with
  uint32_t partition = 0;      // written into every batch
  // New reports get 507 while the spool's filesystem has less free (0: off).
  uint64_t min_free_disk = uint64_t{64} << 20;
  double delivery_grace = 300;  // seconds of failed delivery before /readyz fails
  common::StoreUrl store_url;   // --store parsed
  // PostgreSQL: the store's partition count (fixed at creation; 0 takes what
  // the store has, 1 for a new one).
  uint32_t partitions = 0;
  // Which partitions this process runs a batcher for: all of them, or the
  // list (empty: none, an ingest-only node).
  bool batch_all = true;
  std::vector<uint32_t> batch_partitions;
  double lease_seconds = 30;  // how long a batcher's lease outlives its last renewal
  // SQLite: the spool key file (--spool-key, or the systemd credential
  // shuffler.spool.key); required, so that no spool is ever written in clear.
  std::string spool_key;
};

using common::ParseOutcome;

// Never exits; main() turns the outcome into output and an exit code.
// `message` gets the help or version text, or why the arguments are refused.
ParseOutcome parse_options(int argc, const char* const* argv, Options* out, std::string* message);

}  // namespace p2b::shuffler
