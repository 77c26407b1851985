#include "vfl/service_keys.hpp"

#include <sodium.h>

#include "common/keyfiles.hpp"

namespace p2b::vfl {

bool load_box_pair(const std::string& dir, uint8_t pk[32], uint8_t sk[32], std::string* warning,
                   std::string* err) {
  const std::string base = (dir.empty() || dir.back() == '/' ? dir : dir + "/") + "vfl.box";
  if (!keyfiles::read_key_file(base + ".pk", pk, 32, err) ||
      !keyfiles::read_secret_key_file(base + ".sk", sk, 32, err, warning)) {
    return false;
  }
  uint8_t derived[crypto_scalarmult_BYTES];
  if (sodium_init() < 0 || crypto_scalarmult_base(derived, sk) != 0 ||
      sodium_memcmp(derived, pk, 32) != 0) {
    sodium_memzero(sk, 32);
    *err = base + ".pk is not the public key of " + base + ".sk";
    return false;
  }
  return true;
}

bool load_public_key(const std::string& path, uint8_t pk[32], std::string* fingerprint,
                     std::string* err) {
  if (!keyfiles::read_key_file(path, pk, 32, err)) return false;
  if (!keyfiles::fingerprint_hex(pk, fingerprint)) {
    *err = path + ": cannot fingerprint";
    return false;
  }
  return true;
}

}  // namespace p2b::vfl
