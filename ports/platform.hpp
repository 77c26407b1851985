// The hooks through which the C API finds the platform's CSPRNG and crypto.
// Exactly one port provides them: ports/posix (libsodium) or ports/none
// (nothing built in: the app passes its own in p2b_config).
#pragma once

#include "p2b/config.hpp"
#include "p2b/crypto.hpp"

namespace p2b::port {

// Fills `out` and returns true when the platform has a system random source.
bool default_random(RandomSource* out);

// Fills `out` and returns true when the platform has built-in crypto.
bool default_crypto(CryptoPort* out);

}  // namespace p2b::port
