// Cortex-M port: libsodium (built for the target, libsodium.cmake) for the
// crypto, the board's entropy hook for randomness. Unlike ports/posix, random
// draws go straight to the hook so its failure reaches the caller as
// P2B_ERR_RANDOM_FAILURE.
#include <sodium.h>

#include "../platform.hpp"
#include "p2b_cortex_m.h"

namespace p2b::port {

namespace {

void sodium_misuse_trap() {
  p2b_cortex_m_fatal("libsodium misuse");
}

// sodium_init is idempotent; 1 means "already done". Misuse (an abort() in
// libsodium) becomes the port's fatal trap, with a message.
bool sodium_ready() {
  static bool handler_set = false;
  if (!handler_set) handler_set = sodium_set_misuse_handler(&sodium_misuse_trap) == 0;
  return sodium_init() >= 0;
}

int entropy_fill(void* /*ctx*/, uint8_t* out, std::size_t len) {
  return p2b_cortex_m_entropy(out, len) == 0 ? 0 : -1;
}

int entropy_random(uint8_t* out, std::size_t len) {
  return entropy_fill(nullptr, out, len);
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

static_assert(crypto_aead_xchacha20poly1305_ietf_KEYBYTES == kAeadKeyBytes, "AEAD key size");
static_assert(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES == kAeadNonceBytes, "AEAD nonce");
static_assert(crypto_aead_xchacha20poly1305_ietf_ABYTES == kAeadTagBytes, "AEAD tag");
static_assert(crypto_box_PUBLICKEYBYTES == kPublicKeyBytes, "X25519 key size");
static_assert(crypto_sign_PUBLICKEYBYTES == kPublicKeyBytes, "Ed25519 key size");
static_assert(crypto_box_SEALBYTES == kSealOverheadBytes, "sealed box overhead");
static_assert(crypto_sign_BYTES == kSignatureBytes, "signature size");

}  // namespace

bool default_random(RandomSource* out) {
  out->fill = &entropy_fill;
  out->ctx = nullptr;
  return true;
}

bool default_crypto(CryptoPort* out) {
  *out = CryptoPort{&sodium_seal,         &sodium_hash,         &sodium_verify,
                    &sodium_aead_encrypt, &sodium_aead_decrypt, &entropy_random};
  return true;
}

}  // namespace p2b::port
