// The command line and the --config file of p2b-analyzer (docs/analyzer.md).
// A config file holds `key = value` lines with the flags' names without the
// dashes; a flag given on the command line replaces the file's value (for
// `keys`, the whole list).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "features.hpp"

namespace p2b::analyzer {

struct Options {
  std::string host = "127.0.0.1";
  uint16_t port = 8720;
  std::vector<std::string> key_dirs;  // oldest first; the last one signs
  std::string codebook;
  std::string store;
  uint32_t n_actions = 0;
  double lambda = 1.0;
  AggregationMode mode = AggregationMode::centroid;
  bool raw_enabled = false;
  uint64_t min_reports = 0;
};

enum class ParseOutcome { ok, help, error };

// Never exits: main() maps `error` to exit status 2 and prints `*err`.
ParseOutcome parse_options(int argc, const char* const* argv, Options* out, std::string* err);

std::string usage_text();

}  // namespace p2b::analyzer
