#include "shuffler/keyring.hpp"

#include <sodium.h>

#include "keyfiles.hpp"

namespace p2b::shuffler {

LoadedKeys load_shuffler_keys(const std::vector<std::string>& dirs) {
  if (sodium_init() < 0) throw KeyError("libsodium cannot start");
  LoadedKeys out;
  // No reallocation, so no copy of a secret is left behind unwiped.
  out.keys.reserve(dirs.size());
  for (const std::string& dir : dirs) {
    const std::string base = dir + (dir.empty() || dir.back() == '/' ? "" : "/");
    uint8_t pk[crypto_box_PUBLICKEYBYTES];
    uint8_t sk[crypto_box_SECRETKEYBYTES];
    uint8_t derived[crypto_box_PUBLICKEYBYTES];
    std::string err;
    std::string warning;
    if (!keyfiles::read_key_file(base + "shuffler.box.pk", pk, sizeof pk, &err) ||
        !keyfiles::read_secret_key_file(base + "shuffler.box.sk", sk, sizeof sk, &err, &warning)) {
      wipe_keys(&out.keys);
      throw KeyError(err);
    }
    if (!warning.empty()) out.warnings.push_back(warning);
    server::BoxKey key{};
    const bool pair_ok = crypto_scalarmult_base(derived, sk) == 0 &&
                         sodium_memcmp(derived, pk, sizeof pk) == 0 &&
                         server::make_box_key(pk, sk, &key);
    sodium_memzero(sk, sizeof sk);
    if (!pair_ok) {
      wipe_keys(&out.keys);
      std::string msg = base;
      msg += "shuffler.box.sk does not belong to ";
      msg += base;
      msg += "shuffler.box.pk";
      throw KeyError(msg);
    }
    std::string fp;
    keyfiles::fingerprint_hex(pk, &fp);
    // The same key named twice is harmless; keep one copy.
    bool seen = false;
    for (const std::string& f : out.fingerprints) seen = seen || f == fp;
    if (seen) {
      sodium_memzero(&key, sizeof key);
      continue;
    }
    out.keys.push_back(key);
    sodium_memzero(&key, sizeof key);
    out.fingerprints.push_back(fp);
  }
  return out;
}

void wipe_keys(std::vector<server::BoxKey>* keys) {
  if (!keys->empty()) sodium_memzero(keys->data(), keys->size() * sizeof(server::BoxKey));
  keys->clear();
}

}  // namespace p2b::shuffler
