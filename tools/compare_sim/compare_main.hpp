// p2b-sim --protocol compare: every seed protocol on one environment, one
// schedule and one set of reward coins (docs/simulator.md#compare).
#pragma once

namespace p2b::compare_sim {

// The CLI: parse, validate (exit 2 naming the field), run_compare() with the
// terminal's hooks, write runs.csv, summary.csv and results.json into --out,
// draw them with --plot. Exit 1 when a --spends target was missed.
int compare_main(int argc, char** argv);

}  // namespace p2b::compare_sim
