// p2b-sim --protocol fclub: seed 001's experiments (federated clustering of
// bandits) on server/fclub's code. docs/simulator.md#fclub.
#pragma once

namespace p2b::fclub_sim {

// True when argv asks for --protocol fclub (then p2b-sim hands over).
bool wants_fclub(int argc, char** argv);
int fclub_main(int argc, char** argv);

}  // namespace p2b::fclub_sim
