// p2b-sim's command line (CLI11, with --config FILE and --version).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiment.hpp"
#include "synthetic_env.hpp"

namespace p2b::sim {

struct SimOptions {
  std::string env = "synthetic";  // synthetic | multilabel
  std::vector<Mode> modes{Mode::paper, Mode::standard};
  std::vector<uint64_t> users{10000};  // u, early (sharing) users
  std::vector<uint32_t> actions{10};
  std::vector<uint32_t> dims{10};
  std::vector<uint32_t> interactions{10};  // t, one grid point per value
  uint32_t codes = 1024;
  uint32_t digits = 1;
  double participation = 0.5;
  uint32_t threshold = 10;
  double neg_rate = 0.05;
  double alpha = 1.0;
  double early_fraction = 0.7;
  double beta = 0.1;
  double noise_sd = 0.001;
  ContextLaw contexts = ContextLaw::simplex;
  std::optional<Mapping> mapping;       // --mapping; empty: mapping_for_mode
  std::string weights;                  // --weights FILE (.npy, .npz or .csv)
  std::string weights_layout = "auto";  // auto | actions-by-dim | dim-by-actions
  std::string data;                     // --data FILE.arff (multilabel)
  std::string labels = "auto";
  std::string codebook;  // --codebook FILE: use instead of training
  std::string plot_script;
  uint64_t seed = 1;
  unsigned threads = 2;
  bool crypto = true;
  std::vector<double> central_epsilons{0.0};  // 0: central DP off
  double central_delta = 1e-6;
  uint64_t central_horizon = uint64_t{1} << 20;
  uint64_t central_release = 0;  // 0: the noisiest release of the horizon
  bool plot = false;
  bool quiet = false;
  std::string out_dir = "out/sim";
};

// The synthetic mapping of a grid point: --mapping when given, else linear
// (the reference code's map) for paper mode and softmax (Eq. 4) for default.
Mapping mapping_for(const SimOptions& o, Mode mode);

// Returns -1 to go on, else the exit code (0 after --help, 2 on bad usage).
int parse_sim_options(int argc, char** argv, SimOptions* o);

}  // namespace p2b::sim
