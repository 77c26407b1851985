// p2b-sim --protocol vertical: seed 003's experiments (O3M vertical
// federation) on the library's own code. docs/simulator.md#vertical.
#pragma once

namespace p2b::vertical {

int vertical_main(int argc, char** argv);

}  // namespace p2b::vertical
