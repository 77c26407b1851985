#include "shuffler/spool_seal.hpp"

#include <sodium.h>

namespace p2b::shuffler::spool_seal {

namespace {

constexpr std::size_t kNonce = crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
constexpr std::size_t kTag = crypto_aead_xchacha20poly1305_ietf_ABYTES;
static_assert(kOverhead == kNonce + kTag, "nonce and tag");

}  // namespace

std::vector<uint8_t> row_identity(char table, std::initializer_list<Bytes> key_columns) {
  std::vector<uint8_t> id{static_cast<uint8_t>(table)};
  for (const Bytes& b : key_columns) id.insert(id.end(), b.data, b.data + b.size);
  return id;
}

std::vector<uint8_t> seal(const SpoolKey& key, std::initializer_list<Bytes> plain,
                          const std::vector<uint8_t>& identity) {
  std::vector<uint8_t> message;
  for (const Bytes& b : plain) message.insert(message.end(), b.data, b.data + b.size);
  std::vector<uint8_t> out(kNonce + message.size() + kTag);
  randombytes_buf(out.data(), kNonce);
  unsigned long long written = 0;
  crypto_aead_xchacha20poly1305_ietf_encrypt(out.data() + kNonce, &written, message.data(),
                                             message.size(), identity.data(), identity.size(),
                                             nullptr, out.data(), key.seal_key());
  // The plaintext may be a report: no copy of it outlives the call.
  sodium_memzero(message.data(), message.size());
  return out;
}

bool open(const SpoolKey& key, const std::vector<uint8_t>& sealed,
          const std::vector<uint8_t>& identity, std::vector<uint8_t>* plain) {
  plain->clear();
  if (sealed.size() < kNonce + kTag) return false;
  plain->resize(sealed.size() - kNonce - kTag);
  unsigned long long got = 0;
  if (crypto_aead_xchacha20poly1305_ietf_decrypt(
          plain->data(), &got, nullptr, sealed.data() + kNonce, sealed.size() - kNonce,
          identity.data(), identity.size(), sealed.data(), key.seal_key()) != 0) {
    plain->clear();
    return false;
  }
  return true;
}

LookupTag lookup_tag(const SpoolKey& key, char table, std::initializer_list<Bytes> parts) {
  crypto_generichash_state state;
  crypto_generichash_init(&state, key.lookup_key(), SpoolKey::kSubkeyBytes, sizeof(LookupTag));
  const auto letter = static_cast<uint8_t>(table);
  crypto_generichash_update(&state, &letter, 1);
  for (const Bytes& b : parts) crypto_generichash_update(&state, b.data, b.size);
  LookupTag tag{};
  crypto_generichash_final(&state, tag.data(), tag.size());
  return tag;
}

}  // namespace p2b::shuffler::spool_seal
