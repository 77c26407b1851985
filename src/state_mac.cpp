#include "state_mac.hpp"

#include <cstring>

#include "p2b/blake2b.hpp"
#include "p2b/crypto.hpp"

namespace p2b {

void state_mac(const uint8_t* state_key, const char* label, const uint8_t* msg, std::size_t len,
               uint8_t mac[kStateMacBytes]) {
  uint8_t mac_key[kStateMacBytes];
  // Lengths are in range and pointers set: these calls cannot fail.
  blake2b_keyed(mac_key, sizeof mac_key, state_key, kAeadKeyBytes,
                reinterpret_cast<const uint8_t*>(label), std::strlen(label));
  blake2b_keyed(mac, kStateMacBytes, mac_key, sizeof mac_key, msg, len);
  wipe(mac_key, sizeof mac_key);
}

bool same_bytes(const uint8_t* a, const uint8_t* b, std::size_t n) {
  uint8_t diff = 0;
  for (std::size_t i = 0; i < n; ++i) diff = static_cast<uint8_t>(diff | (a[i] ^ b[i]));
  return diff == 0;
}

void wipe(uint8_t* p, std::size_t n) {
  volatile uint8_t* v = p;
  for (std::size_t i = 0; i < n; ++i) v[i] = 0;
}

}  // namespace p2b
