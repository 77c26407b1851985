// POSIX port: the production random source and crypto, both from libsodium
// (getrandom / /dev/urandom underneath the CSPRNG).
#pragma once

#include "p2b/config.hpp"
#include "p2b/crypto.hpp"

namespace p2b::port {

// fill() is randombytes_buf; it reports failure if libsodium cannot start.
RandomSource system_random();

// crypto_box_seal, crypto_generichash (BLAKE2b), crypto_sign_verify_detached,
// XChaCha20-Poly1305 and randombytes_buf for nonces.
CryptoPort sodium_crypto();

}  // namespace p2b::port
