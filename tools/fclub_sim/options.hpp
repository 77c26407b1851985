// The command line of p2b-sim --protocol fclub.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace p2b::fclub_sim {

struct Options {
  std::string mode = "default";  // default (the paper's maths) or reference (the authors' code)
  std::vector<std::string> algorithms;
  uint32_t seeds = 10;
  uint64_t seed = 1;
  uint64_t rounds = 100000;
  uint64_t every = 1000;
  uint32_t users = 40;
  uint32_t servers = 5;
  uint32_t clusters = 5;
  std::vector<uint32_t> dims{10};
  uint32_t items = 10;
  std::string thetas;
  std::string layout = "auto";  // blocks, shuffled, or auto
  std::vector<double> epsilons{1.0};
  double delta = 0.1;
  double beta_scale = 0.25;
  double split_alpha = 1.5;  // Eq. 3, default mode
  double merge_alpha = 2.0;  // Eq. 4, default mode
  double theta_gap = 0.0;    // CDP-FCLUB-DC: the least theta gap its merge test may assume
  double upload_ratio = 1.01;
  double download_ratio = 1.01;
  uint32_t threads = 2;
  std::string out_dir = "out/fclub";
  bool plot = false;
  bool quiet = false;
};

// -1: run; else the exit status (help, version, a usage error).
int parse_options(int argc, char** argv, Options* o);

}  // namespace p2b::fclub_sim
