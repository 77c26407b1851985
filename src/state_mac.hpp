// The keyed MAC that seals saved state (the agent's and the shared model's),
// and the constant-time comparison that checks it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace p2b {

constexpr std::size_t kStateMacBytes = 32;

// BLAKE2b-256 of `msg` under a subkey of the 32-byte `state_key`: the subkey
// is BLAKE2b-256 keyed with the state key over `label`, so each kind of state
// gets its own MAC key and none equals the key the AEAD uses.
void state_mac(const uint8_t* state_key, const char* label, const uint8_t* msg, std::size_t len,
               uint8_t mac[kStateMacBytes]);

// Compares in time independent of where the bytes differ.
bool same_bytes(const uint8_t* a, const uint8_t* b, std::size_t n);

// Zeroes `n` bytes in a way the compiler may not drop.
void wipe(uint8_t* p, std::size_t n);

}  // namespace p2b
