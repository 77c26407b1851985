#include "sodium_crypto.hpp"

#include <sodium.h>

namespace p2b::port {
namespace {

int seal(uint8_t* out, const uint8_t* msg, std::size_t len, const uint8_t* pk) {
  if (!sodium_started()) return -1;
  return crypto_box_seal(out, msg, len, pk);
}

int hash(uint8_t* out, std::size_t out_len, const uint8_t* msg, std::size_t len) {
  if (!sodium_started()) return -1;
  return crypto_generichash(out, out_len, msg, len, nullptr, 0);
}

int verify(const uint8_t* sig, const uint8_t* msg, std::size_t len, const uint8_t* pk) {
  if (!sodium_started()) return -1;
  return crypto_sign_verify_detached(sig, msg, len, pk);
}

int aead_encrypt(uint8_t* out, const uint8_t* msg, std::size_t len, const uint8_t* ad,
                 std::size_t ad_len, const uint8_t* nonce, const uint8_t* key) {
  if (!sodium_started()) return -1;
  return crypto_aead_xchacha20poly1305_ietf_encrypt(out, nullptr, msg, len, ad, ad_len, nullptr,
                                                    nonce, key);
}

int aead_decrypt(uint8_t* out, const uint8_t* box, std::size_t len, const uint8_t* ad,
                 std::size_t ad_len, const uint8_t* nonce, const uint8_t* key) {
  if (!sodium_started()) return -1;
  return crypto_aead_xchacha20poly1305_ietf_decrypt(out, nullptr, nullptr, box, len, ad, ad_len,
                                                    nonce, key);
}

// The core sizes its buffers by these; libsodium must agree.
static_assert(crypto_aead_xchacha20poly1305_ietf_KEYBYTES == kAeadKeyBytes, "AEAD key size");
static_assert(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES == kAeadNonceBytes, "AEAD nonce");
static_assert(crypto_aead_xchacha20poly1305_ietf_ABYTES == kAeadTagBytes, "AEAD tag");
static_assert(crypto_box_PUBLICKEYBYTES == kPublicKeyBytes, "X25519 key size");
static_assert(crypto_sign_PUBLICKEYBYTES == kPublicKeyBytes, "Ed25519 key size");
static_assert(crypto_box_SEALBYTES == kSealOverheadBytes, "sealed box overhead");
static_assert(crypto_sign_BYTES == kSignatureBytes, "signature size");

}  // namespace

CryptoPort sodium_crypto_with(int (*random)(uint8_t* out, std::size_t len)) {
  return CryptoPort{&seal, &hash, &verify, &aead_encrypt, &aead_decrypt, random};
}

}  // namespace p2b::port
