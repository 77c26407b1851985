// The scale-out benchmark's model publication figure: the publisher's work
// (sum the sharded accumulator rows, build and sign the bundle, store it)
// timed in-process against a PostgreSQL analyzer store that real workers
// filled, with the accumulated report count raised to each target.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace p2b::bench {

// `conninfo` names the analyzer database (workers and publisher stopped),
// `sign_sk_file` the deployment's analyzer.sign.sk. For each target in
// `reports`, the count of one accumulator row is raised so that the store
// holds that many reports (only the count: the sums are fixed-size rows per
// arm and shard, so their size does not grow with reports), then
// `repeats` publications are timed. Throws on failure.
nlohmann::ordered_json time_publications(const std::string& conninfo,
                                         const std::string& sign_sk_file,
                                         const std::vector<double>& reports, int repeats = 5);

}  // namespace p2b::bench
