// POSIX port: the production random source, backed by libsodium's CSPRNG
// (getrandom / /dev/urandom underneath).
#pragma once

#include "p2b/config.hpp"

namespace p2b::port {

// Returns a RandomSource whose fill() is randombytes_buf; its fill reports
// failure if libsodium could not be initialised.
RandomSource system_random();

}  // namespace p2b::port
