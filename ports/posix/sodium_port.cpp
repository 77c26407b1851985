#include "sodium_port.hpp"

#include <sodium.h>

#include "../platform.hpp"

namespace p2b::port {

namespace {

// sodium_init is idempotent and thread-safe; 1 means "already done".
bool sodium_ready() {
  return sodium_init() >= 0;
}

int sodium_fill(void* /*ctx*/, uint8_t* out, std::size_t len) {
  if (!sodium_ready()) return -1;
  randombytes_buf(out, len);
  return 0;
}

int sodium_seal(uint8_t* out, const uint8_t* msg, std::size_t len, const uint8_t* pk) {
  if (!sodium_ready()) return -1;
  return crypto_box_seal(out, msg, len, pk);
}

int sodium_hash(uint8_t* out, std::size_t out_len, const uint8_t* msg, std::size_t len) {
  if (!sodium_ready()) return -1;
  return crypto_generichash(out, out_len, msg, len, nullptr, 0);
}

int sodium_verify(const uint8_t* sig, const uint8_t* msg, std::size_t len, const uint8_t* pk) {
  if (!sodium_ready()) return -1;
  return crypto_sign_verify_detached(sig, msg, len, pk);
}

int sodium_aead_encrypt(uint8_t* out, const uint8_t* msg, std::size_t len, const uint8_t* ad,
                        std::size_t ad_len, const uint8_t* nonce, const uint8_t* key) {
  if (!sodium_ready()) return -1;
  return crypto_aead_xchacha20poly1305_ietf_encrypt(out, nullptr, msg, len, ad, ad_len, nullptr,
                                                    nonce, key);
}

int sodium_aead_decrypt(uint8_t* out, const uint8_t* box, std::size_t len, const uint8_t* ad,
                        std::size_t ad_len, const uint8_t* nonce, const uint8_t* key) {
  if (!sodium_ready()) return -1;
  return crypto_aead_xchacha20poly1305_ietf_decrypt(out, nullptr, nullptr, box, len, ad, ad_len,
                                                    nonce, key);
}

int sodium_random(uint8_t* out, std::size_t len) {
  return sodium_fill(nullptr, out, len);
}

static_assert(crypto_aead_xchacha20poly1305_ietf_KEYBYTES == kAeadKeyBytes, "AEAD key size");
static_assert(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES == kAeadNonceBytes, "AEAD nonce");
static_assert(crypto_aead_xchacha20poly1305_ietf_ABYTES == kAeadTagBytes, "AEAD tag");
static_assert(crypto_box_PUBLICKEYBYTES == kPublicKeyBytes, "X25519 key size");
static_assert(crypto_sign_PUBLICKEYBYTES == kPublicKeyBytes, "Ed25519 key size");
static_assert(crypto_box_SEALBYTES == kSealOverheadBytes, "sealed box overhead");
static_assert(crypto_sign_BYTES == kSignatureBytes, "signature size");

}  // namespace

RandomSource system_random() {
  RandomSource src;
  src.fill = &sodium_fill;
  src.ctx = nullptr;
  return src;
}

CryptoPort sodium_crypto() {
  return CryptoPort{&sodium_seal,         &sodium_hash,         &sodium_verify,
                    &sodium_aead_encrypt, &sodium_aead_decrypt, &sodium_random};
}

bool default_random(RandomSource* out) {
  *out = system_random();
  return true;
}

bool default_crypto(CryptoPort* out) {
  *out = sodium_crypto();
  return true;
}

}  // namespace p2b::port
