// Key loading shared by p2b-vfl-party and p2b-vfl-ap: the service's own
// X25519 pair DIR/vfl.box.{pk,sk} (p2b-keygen --vfl), checked to belong
// together, and pinned public keys of the others.
#pragma once

#include <cstdint>
#include <string>

namespace p2b::vfl {

// False with a reason when a file is missing or of the wrong size, or when
// the public key is not the secret key's. `warning` is set when others can
// read the secret file.
bool load_box_pair(const std::string& dir, uint8_t pk[32], uint8_t sk[32], std::string* warning,
                   std::string* err);

// A 32-byte public key file and its fingerprint (lowercase hex).
bool load_public_key(const std::string& path, uint8_t pk[32], std::string* fingerprint,
                     std::string* err);

}  // namespace p2b::vfl
