// The shuffler's command line and config file: the settings shared with the
// analyzer (common/service_options.hpp, docs/operations.md) plus its own.
#pragma once

#include <cstddef>
#include <string>

#include "common/service_options.hpp"

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
};

using common::ParseOutcome;

// Never exits; main() turns the outcome into output and an exit code.
// `message` gets the help or version text, or why the arguments are refused.
ParseOutcome parse_options(int argc, const char* const* argv, Options* out, std::string* message);

}  // namespace p2b::shuffler
