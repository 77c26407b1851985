// p2b-sim --protocol vertical: seed 003's experiments (O3M vertical
// federation) on the library's own code. docs/simulator.md#vertical.
#pragma once

namespace p2b::vertical {

// The CLI: parse, validate (exit 2 naming the field), run() with the
// terminal's hooks, write the tables into --out, draw them with --plot.
int vertical_main(int argc, char** argv);

}  // namespace p2b::vertical
