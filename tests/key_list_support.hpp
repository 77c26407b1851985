// Builds signed shuffler-key lists for tests, as p2b-keylist does: the
// core's encoder, then an Ed25519 signature by the test deployment's
// analyzer key (or another one).
#pragma once

#include <cstring>
#include <vector>

#include "p2b/key_list.hpp"
#include "test_support.hpp"

namespace p2b_test {

struct ListOptions {
  uint64_t version = 1;
  std::vector<const uint8_t*> keys;  // X25519 public keys; keys[current] is current
  uint32_t current = 0;
  uint64_t created_unix = 1795000000;
  uint64_t not_after_unix = 0;
  const uint8_t* sign_sk = nullptr;    // default: the test deployment's analyzer key
  const uint8_t* signer_pk = nullptr;  // whose fingerprint the list names; default: sign_sk's
};

inline std::vector<uint8_t> signed_list(const ListOptions& opt) {
  p2b::KeyList l{};
  l.version = opt.version;
  l.created_unix = opt.created_unix;
  l.not_after_unix = opt.not_after_unix;
  l.count = static_cast<uint32_t>(opt.keys.size());
  l.current = opt.current;
  for (size_t i = 0; i < opt.keys.size() && i < p2b::kKeyListMaxKeys; ++i) {
    std::memcpy(l.keys[i], opt.keys[i], p2b::kPublicKeyBytes);
  }
  const uint8_t* sk = opt.sign_sk != nullptr ? opt.sign_sk : test_keys().sign_sk;
  // An Ed25519 secret key ends with its public key.
  const uint8_t* pk = opt.signer_pk != nullptr ? opt.signer_pk : sk + 32;
  crypto_generichash(l.signer_fp, sizeof l.signer_fp, pk, p2b::kPublicKeyBytes, nullptr, 0);
  std::vector<uint8_t> out(p2b::kKeyListBytes);
  if (p2b::encode_key_list(l, out.data()) != p2b::Status::ok) std::abort();
  crypto_sign_detached(out.data() + p2b::kKeyListSignedBytes, nullptr, out.data(),
                       p2b::kKeyListSignedBytes, sk);
  return out;
}

// A fresh X25519 key pair.
struct BoxPair {
  uint8_t pk[crypto_box_PUBLICKEYBYTES];
  uint8_t sk[crypto_box_SECRETKEYBYTES];
  BoxPair() { crypto_box_keypair(pk, sk); }
};

}  // namespace p2b_test
