// p2b-sim: one binary, five simulators. --protocol picks one (each has its
// own options and reads argv itself); without it, the P2B paper's
// experiments (section 5) run on the library's own code (sim/sim_main.cpp).
#include "compare_sim/compare_main.hpp"
#include "fclub_sim/fclub_main.hpp"
#include "pfcb_sim/pfcb_main.hpp"
#include "sim/protocol_flag.hpp"
#include "sim/sim_main.hpp"
#include "vertical/vertical_main.hpp"

int main(int argc, char** argv) {
  using p2b::sim::wants_protocol;
  // docs/simulator.md has a section for each.
  if (wants_protocol(argc, argv, "vertical")) return p2b::vertical::vertical_main(argc, argv);
  if (wants_protocol(argc, argv, "fclub")) return p2b::fclub_sim::fclub_main(argc, argv);
  if (wants_protocol(argc, argv, "pfcb")) return p2b::pfcb_sim::pfcb_main(argc, argv);
  if (wants_protocol(argc, argv, "compare")) return p2b::compare_sim::compare_main(argc, argv);
  return p2b::sim::sim_main(argc, argv);
}
