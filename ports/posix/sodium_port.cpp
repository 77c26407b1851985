#include "sodium_port.hpp"

#include <sodium.h>

#include "../platform.hpp"
#include "../sodium/sodium_crypto.hpp"

namespace p2b::port {

// sodium_init is idempotent and thread-safe; 1 means "already done".
bool sodium_started() {
  return sodium_init() >= 0;
}

namespace {

int sodium_fill(void* /*ctx*/, uint8_t* out, std::size_t len) {
  if (!sodium_started()) return -1;
  randombytes_buf(out, len);
  return 0;
}

int sodium_random(uint8_t* out, std::size_t len) {
  return sodium_fill(nullptr, out, len);
}

}  // namespace

RandomSource system_random() {
  RandomSource src;
  src.fill = &sodium_fill;
  src.ctx = nullptr;
  return src;
}

CryptoPort sodium_crypto() {
  return sodium_crypto_with(&sodium_random);
}

bool default_random(RandomSource* out) {
  *out = system_random();
  return true;
}

bool default_crypto(CryptoPort* out) {
  *out = sodium_crypto();
  return true;
}

}  // namespace p2b::port
