// p2b-sim --protocol fclub: seed 001's experiments (federated clustering of
// bandits) on server/fclub's code. docs/simulator.md#fclub.
#pragma once

namespace p2b::fclub_sim {

int fclub_main(int argc, char** argv);

}  // namespace p2b::fclub_sim
