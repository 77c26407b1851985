// The hook through which the C API finds the platform's CSPRNG. Exactly one
// port provides it: ports/posix (libsodium) or ports/none (no system source;
// callers must pass their own random function or use seeded mode).
#pragma once

#include "p2b/config.hpp"

namespace p2b::port {

// Fills `out` and returns true when the platform has a system random source.
bool default_random(RandomSource* out);

}  // namespace p2b::port
