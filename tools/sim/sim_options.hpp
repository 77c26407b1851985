// p2b-sim's P2B experiment: its one options type, read by the command line
// (parse_options) and set field by field by Python (p2b.P2BOptions), and
// checked by one validate() for both.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/run_flags.hpp"
#include "experiment.hpp"
#include "synthetic_env.hpp"

namespace p2b::sim {

struct SimOptions {
  // --seeds, --seed, --threads, --out, --plot, --quiet. --seeds N repeats the
  // whole grid with seeds seed .. seed+N-1 (the `seed` column tells them
  // apart). `out` empty: run() keeps trained codebooks in memory only; the
  // CLI's default is out/sim and its threads all cores (parse_options).
  tools::CommonRunOptions run{};
  std::string env = "synthetic";  // synthetic | multilabel
  std::vector<Mode> modes{Mode::paper, Mode::standard};
  std::vector<uint64_t> users{10000};  // u, early (sharing) users
  std::vector<uint32_t> actions{10};
  std::vector<uint32_t> dims{10};
  std::vector<uint32_t> interactions{10};  // t, one grid point per value
  uint32_t codes = 1024;
  uint32_t digits = 1;
  double participation = 0.5;  // --p
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
  bool crypto = true;                         // --no-crypto clears it
  std::vector<double> central_epsilons{0.0};  // 0: central DP off
  double central_delta = 1e-6;
  uint64_t central_horizon = uint64_t{1} << 20;
  uint64_t central_release = 0;  // 0: the noisiest release of the horizon
};

// The synthetic mapping of a grid point: --mapping when given, else linear
// (the reference code's map) for paper mode and softmax (Eq. 4) for default.
Mapping mapping_for(const SimOptions& o, Mode mode);

// Empty when `o` is valid, else one message that names the field by its CLI
// flag and the allowed range ("--users = 5: must be in [10, 10^8]").
std::string validate(const SimOptions& o);

// Parses argv into *o (defaults: out/sim, every core); -1 to go on, else
// the exit status (0 after --help, 2 on bad usage, with the message said).
int parse_options(int argc, char** argv, SimOptions* o);

// Every long flag parse_options takes ("--users", ..., "--help"), so the
// Python binding can show that its keywords are the same names.
std::vector<std::string> long_flags();

}  // namespace p2b::sim
