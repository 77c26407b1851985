// Cortex-M port: libsodium (built for the target, libsodium.cmake) for the
// crypto, the board's entropy hook for randomness. Unlike ports/posix, random
// draws go straight to the hook so its failure reaches the caller as
// P2B_ERR_RANDOM_FAILURE.
#include <sodium.h>

#include "../platform.hpp"
#include "../sodium/sodium_crypto.hpp"
#include "p2b_cortex_m.h"

namespace p2b::port {

namespace {

void sodium_misuse_trap() {
  p2b_cortex_m_fatal("libsodium misuse");
}

int entropy_fill(void* /*ctx*/, uint8_t* out, std::size_t len) {
  return p2b_cortex_m_entropy(out, len) == 0 ? 0 : -1;
}

int entropy_random(uint8_t* out, std::size_t len) {
  return entropy_fill(nullptr, out, len);
}

}  // namespace

// sodium_init is idempotent; 1 means "already done". Misuse (an abort() in
// libsodium) becomes the port's fatal trap, with a message.
bool sodium_started() {
  static bool handler_set = false;
  if (!handler_set) handler_set = sodium_set_misuse_handler(&sodium_misuse_trap) == 0;
  return sodium_init() >= 0;
}

bool default_random(RandomSource* out) {
  out->fill = &entropy_fill;
  out->ctx = nullptr;
  return true;
}

bool default_crypto(CryptoPort* out) {
  *out = sodium_crypto_with(&entropy_random);
  return true;
}

}  // namespace p2b::port
