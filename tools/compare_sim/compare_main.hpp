// p2b-sim --protocol compare: every seed protocol on one environment, one
// schedule and one set of reward coins (docs/simulator.md#compare).
#pragma once

namespace p2b::compare_sim {

int compare_main(int argc, char** argv);

}  // namespace p2b::compare_sim
