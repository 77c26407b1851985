// The core's CryptoPort over libsodium, shared by every port that links it
// (posix, cortex-m). Each port decides how libsodium starts and where nonce
// randomness comes from.
#pragma once

#include <cstddef>
#include <cstdint>

#include "p2b/crypto.hpp"

namespace p2b::port {

// Defined by the port: starts libsodium (idempotent); false if it cannot.
bool sodium_started();

// crypto_box_seal, BLAKE2b, Ed25519 verify and XChaCha20-Poly1305, each
// failing cleanly when libsodium cannot start; `random` fills AEAD nonces.
CryptoPort sodium_crypto_with(int (*random)(uint8_t* out, std::size_t len));

}  // namespace p2b::port
