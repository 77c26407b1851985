// `p2b-shuffler retire-key --store URL --fingerprint HEX`: ends a shuffler
// key's epoch in the spool (docs/shuffler.md, "Key retirement"). Its replay
// state is dropped, and from then on every node refuses envelopes sealed to
// it (421 key_retired) and refuses to start with it.
#pragma once

namespace p2b::shuffler {

// argv[0] is "retire-key". Returns the process exit code.
int retire_key_main(int argc, const char* const* argv);

}  // namespace p2b::shuffler
