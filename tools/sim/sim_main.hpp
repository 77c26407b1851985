// p2b-sim's default protocol (P2B) on the command line: parse, validate,
// run (sim/run.hpp), print the summary, write results.csv and results.json
// into --out, and with --plot draw the figures.
#pragma once

namespace p2b::sim {

int sim_main(int argc, char** argv);

}  // namespace p2b::sim
