#include "shuffler/sign_keys.hpp"

#include <sodium.h>

#include <filesystem>

namespace p2b::shuffler {

namespace {

constexpr std::size_t kSignSecretBytes = 64;
constexpr const char* kFileName = "/shuffler.sign.sk";

bool same_key(const common::SecureArray<uint8_t>& a, const common::SecureArray<uint8_t>& b) {
  return sodium_memcmp(a.data(), b.data(), kSignSecretBytes) == 0;
}

}  // namespace

std::vector<const uint8_t*> SignKeys::previous_pointers() const {
  std::vector<const uint8_t*> out;
  out.reserve(previous.size());
  for (const common::SecureArray<uint8_t>& k : previous) out.push_back(k.data());
  return out;
}

SignKeys load_sign_keys(const std::vector<std::string>& dirs, std::vector<std::string>* warnings) {
  SignKeys keys;
  keys.current = common::load_sign_key(dirs.back() + kFileName, warnings);
  // Newest first: the directory before the last is the likeliest signer of
  // a batch still waiting, so it is offered first.
  for (auto dir = dirs.rbegin() + 1; dir != dirs.rend(); ++dir) {
    const std::string path = *dir + kFileName;
    if (!std::filesystem::exists(path)) continue;
    common::SecureArray<uint8_t> key = common::load_sign_key(path, warnings);
    bool known = same_key(key, keys.current);
    for (const common::SecureArray<uint8_t>& k : keys.previous) known = known || same_key(key, k);
    if (known) continue;
    keys.previous_fingerprints.push_back(common::verify_key_fingerprint(key.data()));
    keys.previous.push_back(std::move(key));
  }
  return keys;
}

}  // namespace p2b::shuffler
