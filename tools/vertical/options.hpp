// The command line of p2b-sim --protocol vertical.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "p2b/config.hpp"

namespace p2b::vertical {

struct Options {
  std::string env = "synthetic";  // synthetic | multilabel
  uint32_t dim = 100;
  uint32_t items = 10;
  uint64_t rounds = 5000;
  std::vector<uint32_t> partition{20, 20, 20, 20, 20};
  std::vector<double> partial{0.2, 0.8};
  uint32_t repeats = 5;
  uint64_t seed = 1;
  std::vector<Policy> policies{Policy::linucb, Policy::lints};
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
  std::vector<uint32_t> cost_items{10, 100, 500, 1000};
  uint32_t cost_parties = 5;
  uint32_t cost_rounds = 20;
  unsigned threads = 2;
  bool plot = false;
  bool quiet = false;
  std::string plot_script;
  std::string out_dir = "out/vertical";
};

// -1 to go on, else the exit status (0 after --help/--version, 2 on bad usage).
int parse_options(int argc, char** argv, Options* o);

}  // namespace p2b::vertical
