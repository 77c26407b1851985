// `p2b-shuffler spool rekey --store PATH --spool-key OLD --new-spool-key NEW`:
// re-seals an offline SQLite spool under a new key (docs/operations.md,
// "Rotating the spool key").
#pragma once

namespace p2b::shuffler {

// argv[0] is "spool". Returns the process exit code: 0 done, 1 the spool
// cannot be used, 2 a bad command line or a key refused (nothing changed),
// 4 the store was refused.
int spool_command_main(int argc, const char* const* argv);

}  // namespace p2b::shuffler
