// The command line of p2b-sim --protocol pfcb.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pfcb_sim/team.hpp"
#include "pfcb_sim/world.hpp"

namespace p2b::pfcb_sim {

struct Options {
  // nf (CmabAgent, eps = 0), fcb (pooled reference), pfcb (the paper's
  // schedule or --schedule), pfcb-aligned, pfcb-accept-all (omega1 = inf).
  std::vector<std::string> algorithms{"nf", "fcb", "pfcb", "pfcb-aligned"};
  std::vector<Dist> dists{Dist::uniform, Dist::normal};
  std::vector<double> epsilons{1.0, 0.3};
  std::vector<uint32_t> agents_grid{10};
  uint32_t producers = 30;
  uint32_t instances = 5;
  uint32_t runs = 20;
  uint64_t rounds = 100000;
  uint64_t every = 0;  // curve step; 0: rounds / 100
  bool homogeneous = false;
  uint32_t max_capacity = 50;
  double alpha = 0.4;
  ViolationCost violation = ViolationCost::optimum;
  TeamSpec team;  // schedule, window, delta, omegas, explore, UCB scale, log base
  uint64_t seed = 1;
  uint32_t threads = 2;
  std::string out_dir = "out/pfcb";
  bool plot = false;
  bool quiet = false;
};

// -1: run; else the exit status (help, version, a usage error).
int parse_options(int argc, char** argv, Options* o);

}  // namespace p2b::pfcb_sim
