// Server-side openers of the two envelope layers (see include/p2b/envelope.hpp).
// The shuffler opens the outer layer and learns only the crowd id; the
// analyzer opens the inner layer. Inputs are untrusted: every length, key,
// field and padding byte is checked, and nothing is allocated.
#pragma once

#include <cstddef>
#include <cstdint>

#include "p2b/envelope.hpp"

namespace p2b::server {

struct BoxKey {
  uint8_t pk[kPublicKeyBytes];
  uint8_t sk[kPublicKeyBytes];
  uint8_t fp[kFingerprintBytes];
};

enum class OpenStatus {
  ok,
  wrong_length,    // not exactly the layer's fixed length
  unknown_key,     // the cleartext fingerprint names none of our keys
  decrypt_failed,  // sealed to another key, or tampered with
  malformed,       // decrypted, but the protobuf, padding or values are invalid
};

const char* open_status_str(OpenStatus s);

// Derives the fingerprint; false if libsodium cannot start.
bool make_box_key(const uint8_t* pk, const uint8_t* sk, BoxKey* out);

struct OuterOpened {
  uint32_t crowd_id;
  uint8_t inner[kInnerBytes];
};

// Opens an envelope with whichever of `keys` its fingerprint names.
OpenStatus open_outer(const uint8_t* envelope, std::size_t len, const BoxKey* keys,
                      std::size_t n_keys, OuterOpened* out);

struct InnerOpened {
  uint32_t code;
  uint32_t action;
  float reward;
  uint64_t model_version;
};

OpenStatus open_inner(const uint8_t* inner, std::size_t len, const BoxKey* keys, std::size_t n_keys,
                      InnerOpened* out);

}  // namespace p2b::server
