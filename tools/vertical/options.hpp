// The options of p2b-sim --protocol vertical: one struct that the command
// line fills (parse_options) and Python's p2b.VerticalOptions binds, field
// for field, under the long flags' names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/run_flags.hpp"

namespace p2b::vertical {

struct Options {
  // --seeds: runs per policy, seeds seed..seed+seeds-1.
  tools::CommonRunOptions run{5, 1, 2, "out/vertical", false, false};
  std::string env = "synthetic";  // synthetic | multilabel
  uint32_t dim = 100;
  uint32_t actions = 10;  // K, items per round
  uint64_t rounds = 5000;
  std::vector<uint32_t> partition{20, 20, 20, 20, 20};
  std::vector<double> partial{0.2, 0.8};
  std::vector<std::string> policies{"linucb", "lints"};
  double beta = 0.5;
  double ts_scale = 0.01;
  double noise_sd = 0.05;
  double tie = 1e-9;
  std::string data;  // --data FILE.arff (multilabel)
  std::string labels = "auto";
  uint32_t parties = 4;     // multilabel: M
  uint32_t components = 3;  // multilabel: local components per party
  bool cost = false;        // the cost grid instead of the regret runs
  std::vector<uint32_t> cost_dims{25, 50, 100, 200, 400};
  std::vector<uint32_t> cost_actions{10, 100, 500, 1000};
  uint32_t cost_parties = 5;
  uint32_t cost_rounds = 20;
};

// Empty when `o` is valid, else one line naming the field by its flag and the
// allowed range ("--rounds = 0: must be in [1, 100000000]").
std::string validate(const Options& o);

// Every long flag parse_options accepts ("--rounds", ...), without the
// hidden deprecated aliases: the names Python's VerticalOptions must have.
std::vector<std::string> long_flags();

// Parses argv into *o. -1 to go on, else the exit status (0 after
// --help/--version, 2 on bad usage).
int parse_options(int argc, char** argv, Options* o);

}  // namespace p2b::vertical
