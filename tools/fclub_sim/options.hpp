// The options of p2b-sim --protocol fclub: one struct that the command line,
// run() and Python's p2b.simulate_fclub (FclubOptions) all read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/run_flags.hpp"

namespace p2b::fclub_sim {

struct Options {
  // --seeds 10 --seed 1 --threads 2 --out out/fclub
  tools::CommonRunOptions run{10, 1, 2, "out/fclub", false, false};
  std::string mode = "default";  // default (the paper's maths) or reference (the authors' code)
  std::vector<std::string> algorithms;  // empty: every algorithm the mode has
  uint64_t rounds = 100000;
  uint64_t every = 1000;
  uint32_t users = 40;
  uint32_t servers = 5;
  uint32_t clusters = 5;
  std::vector<uint32_t> dims{10};
  uint32_t items = 10;
  std::string thetas;
  std::string layout = "auto";  // blocks, shuffled, or auto (= blocks)
  std::vector<double> epsilons{1.0};
  double delta = 0.1;
  double beta_scale = 0.25;
  double split_alpha = 1.5;  // Eq. 3, default mode
  double merge_alpha = 2.0;  // Eq. 4, default mode
  double theta_gap = 0.0;    // CDP-FCLUB-DC: the least theta gap its merge test may assume
  double upload_ratio = 1.01;
  double download_ratio = 1.01;
};

// Every algorithm name --algorithms accepts.
const std::vector<std::string>& all_algorithms();
// The algorithms a run of `o` plays: o.algorithms, or all the mode has.
std::vector<std::string> algorithms_to_run(const Options& o);

// "" when `o` is valid, else one line naming the first bad field by its flag
// and saying what it may be ("--rounds = 0: must be in [1, 1073741824]").
std::string validate(const Options& o);

// Every long flag parse_options accepts ("--rounds", ...), without the
// hidden deprecated spellings: what Python's keywords are checked against.
std::vector<std::string> long_flags();

// Parses argv into *o. -1: go on; else the exit status (help, version, a
// usage error, already reported on stderr).
int parse_options(int argc, char** argv, Options* o);

}  // namespace p2b::fclub_sim
