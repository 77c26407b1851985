#include "system_random.hpp"

#include <sodium.h>

namespace p2b::port {

namespace {

int sodium_fill(void* /*ctx*/, uint8_t* out, std::size_t len) {
  // sodium_init is idempotent and thread-safe; 1 means "already done".
  if (sodium_init() < 0) return -1;
  randombytes_buf(out, len);
  return 0;
}

}  // namespace

RandomSource system_random() {
  RandomSource src;
  src.fill = &sodium_fill;
  src.ctx = nullptr;
  return src;
}

}  // namespace p2b::port

#include "../default_random.hpp"

namespace p2b::port {

bool default_random(RandomSource* out) {
  *out = system_random();
  return true;
}

}  // namespace p2b::port
