// Consumer check from C++: the core's own API (p2b::core, include/p2b/) with
// an agent in caller memory. The core has no platform code, so the app plugs
// in the crypto port; here libsodium, as ports/posix does for the C API.
#include <sodium.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "p2b/agent.hpp"

namespace {

int seal(uint8_t* out, const uint8_t* msg, std::size_t len, const uint8_t* pk) {
  return crypto_box_seal(out, msg, len, pk);
}
int hash(uint8_t* out, std::size_t out_len, const uint8_t* msg, std::size_t len) {
  return crypto_generichash(out, out_len, msg, len, nullptr, 0);
}
int verify(const uint8_t* sig, const uint8_t* msg, std::size_t len, const uint8_t* pk) {
  return crypto_sign_verify_detached(sig, msg, len, pk);
}
int encrypt(uint8_t* out, const uint8_t* msg, std::size_t len, const uint8_t* ad,
            std::size_t ad_len, const uint8_t* nonce, const uint8_t* key) {
  return crypto_aead_xchacha20poly1305_ietf_encrypt(out, nullptr, msg, len, ad, ad_len, nullptr,
                                                    nonce, key);
}
int decrypt(uint8_t* out, const uint8_t* box, std::size_t len, const uint8_t* ad,
            std::size_t ad_len, const uint8_t* nonce, const uint8_t* key) {
  return crypto_aead_xchacha20poly1305_ietf_decrypt(out, nullptr, nullptr, box, len, ad, ad_len,
                                                    nonce, key);
}
int random_bytes(uint8_t* out, std::size_t len) {
  randombytes_buf(out, len);
  return 0;
}

bool failed(const char* what, p2b::Status s) {
  if (p2b::is_error(s)) std::fprintf(stderr, "consumer(c++): %s: %s\n", what, p2b::status_str(s));
  return p2b::is_error(s);
}

}  // namespace

int main() {
  if (sodium_init() < 0) return 1;
  constexpr int kSteps = 300;
  const float codebook[] = {0.9f, 0.1f, 0.1f, 0.9f};
  const uint8_t key[p2b::kPublicKeyBytes] = {1, 2, 3, 4};

  p2b::Config cfg;
  cfg.dim = 2;
  cfg.n_actions = 3;
  cfg.centroids = codebook;
  cfg.n_codes = 2;
  cfg.deterministic = true;
  cfg.seed = 42;
  cfg.shuffler_public_key = cfg.analyzer_public_key = cfg.analyzer_verify_key = key;
  cfg.crypto = p2b::CryptoPort{&seal, &hash, &verify, &encrypt, &decrypt, &random_bytes};

  std::size_t bytes = 0;
  if (failed("footprint", p2b::footprint(cfg, &bytes))) return 1;
  // aligned_alloc wants a multiple of the alignment.
  const std::size_t rounded = (bytes + p2b::kArenaAlign - 1) / p2b::kArenaAlign * p2b::kArenaAlign;
  std::unique_ptr<void, decltype(&std::free)> arena(std::aligned_alloc(p2b::kArenaAlign, rounded),
                                                    &std::free);
  p2b::Agent* agent = nullptr;
  if (!arena || failed("init", p2b::Agent::init(arena.get(), rounded, cfg, &agent))) return 1;

  int hits = 0;
  for (int step = 0; step < kSteps; ++step) {
    const float x[2] = {float(step % 2), float((step + 1) % 2)};
    uint32_t action = 0;
    uint64_t id = 0;
    if (failed("decide", agent->decide(x, 2, &action, &id))) return 1;
    const bool liked = action == uint32_t(step % 2);
    hits += liked;
    if (failed("reward", agent->reward(id, liked ? 1.0f : 0.0f))) return 1;
  }
  p2b::PrivacyLedger ledger{};
  if (failed("privacy", agent->privacy(&ledger))) return 1;
  std::printf("consumer(c++): %zu-byte arena, %d/%d rewarded, %llu reports queued\n", bytes, hits,
              kSteps, static_cast<unsigned long long>(ledger.reports));
  return hits > kSteps / 2 ? 0 : 1;
}
