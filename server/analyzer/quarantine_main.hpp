// `p2b-analyzer quarantine list|retry|purge --store PATH [--reason R]
// [--older-than DAYS]`: the records the analyzer quarantined because it
// could not open or use them (docs/analyzer.md, docs/operations.md,
// "Quarantine").
#pragma once

namespace p2b::analyzer {

// argv[0] is "quarantine". Returns the process exit code.
int quarantine_main(int argc, const char* const* argv);

}  // namespace p2b::analyzer
