// The shuffler's command line and config file. A config file holds
// `key = value` lines with the flag names without dashes; flags given on the
// command line override it (a repeatable flag such as --keys replaces the
// file's whole list).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace p2b::shuffler {

struct Options {
  std::string listen_host = "127.0.0.1";
  int listen_port = 8710;  // 0: the kernel picks one
  std::vector<std::string> key_dirs;
  std::string spool;
  std::string analyzer;
  std::size_t batch_size = 1000;
  double batch_seconds = 10;
  std::size_t threshold = 10;
  double noisy_threshold = 0;  // sigma of the threshold noise; 0 = off
  std::size_t max_body = 262144;
};

enum class ParseOutcome {
  ok,
  help,         // --help: print usage, exit 0
  usage_error,  // exit 2
  io_error,     // the config file cannot be read: exit 1
};

ParseOutcome parse_options(int argc, const char* const* argv, Options* out, std::string* error);

const char* usage_text();

}  // namespace p2b::shuffler
