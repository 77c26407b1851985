// `p2b-shuffler quarantine list|retry|purge --store URL [--reason R]
// [--older-than DAYS]`: the records the shuffler set aside instead of
// sending (docs/shuffler.md, "Row integrity"; docs/operations.md,
// "Quarantine").
#pragma once

namespace p2b::shuffler {

// argv[0] is "quarantine". Returns the process exit code.
int quarantine_main(int argc, const char* const* argv);

}  // namespace p2b::shuffler
