// The options of p2b-sim --protocol pfcb: one struct that the command line,
// run() and Python's p2b.simulate_pfcb (PfcbOptions) all read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/run_flags.hpp"
#include "pfcb_sim/team.hpp"
#include "pfcb_sim/world.hpp"

namespace p2b::pfcb_sim {

struct Options {
  // --seeds 20 (runs, realisations, per instance) --seed 1 --threads 2 --out out/pfcb
  tools::CommonRunOptions run{20, 1, 2, "out/pfcb", false, false};
  // nf (CmabAgent, eps = 0), fcb (pooled reference), pfcb (the paper's
  // schedule or --schedule), pfcb-aligned, pfcb-accept-all (omega1 = inf).
  std::vector<std::string> algorithms{"nf", "fcb", "pfcb", "pfcb-aligned"};
  std::vector<Dist> dists{Dist::uniform, Dist::normal};
  std::vector<double> epsilons{1.0, 0.3};
  std::vector<uint32_t> agents_grid{10};
  uint32_t producers = 30;
  uint32_t instances = 5;
  uint64_t rounds = 100000;
  uint64_t every = 0;  // curve step; 0: rounds / 100
  bool homogeneous = false;
  uint32_t max_capacity = 50;
  double alpha = 0.4;
  ViolationCost violation = ViolationCost::optimum;
  TeamSpec team;  // schedule, window, delta, omegas, explore, UCB scale, log base
};

// Every name --algorithms accepts.
const std::vector<std::string>& all_algorithms();

// The curve step a run of `o` uses: o.every, or rounds / 100 (at least 1).
uint64_t curve_step(const Options& o);

// "" when `o` is valid, else one line naming the first bad field by its flag
// and saying what it may be ("--producers = 65: must be in [1, 64]").
std::string validate(const Options& o);

// Every long flag parse_options accepts ("--rounds", ...), without the
// hidden deprecated spellings: what Python's keywords are checked against.
std::vector<std::string> long_flags();

// Parses argv into *o. -1: go on; else the exit status (help, version, a
// usage error, already reported on stderr).
int parse_options(int argc, char** argv, Options* o);

}  // namespace p2b::pfcb_sim
