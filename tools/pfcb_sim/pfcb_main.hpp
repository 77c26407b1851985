// p2b-sim --protocol pfcb: seed 004's experiments (P-FCB, federated
// combinatorial bandits under a quality constraint) on p2b::CmabAgent.
// docs/simulator.md#p-fcb.
#pragma once

namespace p2b::pfcb_sim {

int pfcb_main(int argc, char** argv);

}  // namespace p2b::pfcb_sim
