// The command line and the --config file of p2b-analyzer: the settings
// shared with the shuffler (common/service_options.hpp, docs/operations.md)
// plus its own (docs/analyzer.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/service_options.hpp"
#include "common/store_url.hpp"
#include "features.hpp"
#include "http_api.hpp"
#include "role.hpp"

namespace p2b::analyzer {

struct Options : common::ServiceOptions {
  Options();
  std::string codebook;
  uint32_t n_actions = 0;
  double lambda = 1.0;
  AggregationMode mode = AggregationMode::centroid;
  bool raw_enabled = false;
  uint64_t min_reports = 0;
  uint64_t model_ttl = 0;                  // seconds; 0: models carry no not-after time
  std::string key_list;                    // served at GET /v1/keys; empty: 404
  std::vector<std::string> shuffler_keys;  // shuffler.sign.pk files a batch may be signed by
  std::size_t threshold = 10;              // l, applied again to valid reports per crowd
  double noisy_threshold = 0;              // sigma on those counts, as the shuffler's
  uint64_t max_quarantine = 1000000;       // records; a batch that would pass it gets 507
  // Central DP of the released statistics (central_dp.hpp): --central-epsilon
  // is required, and `off` leaves epsilon 0.
  double central_epsilon = 0.0;
  double central_delta = 1e-6;
  uint64_t central_horizon = uint64_t{1} << 20;
  // A batch with more records is refused (413) before it is decrypted.
  std::size_t max_batch_records = kDefaultMaxBatchRecords;
  // --store parsed: SQLite (a path) or PostgreSQL (a libpq URL).
  common::StoreUrl store_url;
  Role role = Role::all;         // worker and publisher need PostgreSQL
  double publish_seconds = 10;   // PostgreSQL: publish this long after new reports
  uint64_t publish_reports = 0;  // or after this many (0: by time only)
};

using common::ParseOutcome;

// Never exits; main() turns the outcome into output and an exit code.
// `message` gets the help or version text, or why the arguments are refused.
ParseOutcome parse_options(int argc, const char* const* argv, Options* out, std::string* message);

}  // namespace p2b::analyzer
