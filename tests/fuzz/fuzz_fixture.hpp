// What the fuzz targets and the seed generator (make_corpus.cpp) share: fixed
// keys, one fixed agent configuration, and the sealing used by the "sealed"
// modes. A seed reaches the decoders behind decryption, signature and hash
// checks only if it was made with exactly the keys and configuration the
// target checks against, so both sides take them from here.
#pragma once

#include <sodium.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../test_support.hpp"
#include "p2b.h"
#include "wire/batch_format.hpp"
#include "wire/envelope_open.hpp"

namespace p2b_fuzz {

// Aborts with a message: how a target reports a broken invariant, so
// libFuzzer saves the input as a crash.
inline void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
    std::abort();
  }
}

// libsodium's randomness (ephemeral sealing keys, nonces) made reproducible:
// regenerating the corpus gives the same bytes, and an input that crashes in a
// sealing mode replays exactly. Not random at all; fuzzing only.
inline uint64_t& fixed_random_state() {
  static uint64_t s = 0x5EED0F2B5EED0F2BULL;
  return s;
}
inline uint32_t fixed_random_u32() {
  uint64_t z = (fixed_random_state() += 0x9E3779B97F4A7C15ULL);  // splitmix64
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return static_cast<uint32_t>((z ^ (z >> 31)) >> 32);
}
inline void fixed_random_buf(void* const buf, const size_t size) {
  auto* p = static_cast<uint8_t*>(buf);
  for (size_t i = 0; i < size; ++i) p[i] = static_cast<uint8_t>(fixed_random_u32());
}
inline const char* fixed_random_name() {
  return "p2b-fuzz-fixed";
}

// Must run before anything calls sodium_init (libsodium's rule); every target
// calls it first thing through keys().
inline void install_fixed_randombytes() {
  static randombytes_implementation impl = {fixed_random_name, fixed_random_u32, nullptr,
                                            nullptr,           fixed_random_buf, nullptr};
  require(randombytes_set_implementation(&impl) == 0, "randombytes_set_implementation");
  require(sodium_init() >= 0, "sodium_init");
}

struct Keys {
  // [0] a retired key, [1] the current one: the openers search a key list,
  // and devices seal to the current key.
  p2b::server::BoxKey shuffler[2];
  p2b::server::BoxKey analyzer[2];
  uint8_t verify_pk[crypto_sign_PUBLICKEYBYTES];
  uint8_t sign_sk[crypto_sign_SECRETKEYBYTES];
  uint8_t state_key[32];  // MACs and encrypts saved state
  // The shuffler's batch-signing keys, [0] retired and [1] current, as the
  // analyzer pins them (--shuffler-key twice during a rotation).
  uint8_t shuffler_sign_sk[2][crypto_sign_SECRETKEYBYTES];
  p2b::server::VerifyKey shuffler_verify[2];
};

inline void box_key_from_seed(uint8_t tag, p2b::server::BoxKey* out) {
  uint8_t seed[crypto_box_SEEDBYTES];
  std::memset(seed, tag, sizeof seed);
  uint8_t pk[crypto_box_PUBLICKEYBYTES];
  uint8_t sk[crypto_box_SECRETKEYBYTES];
  require(crypto_box_seed_keypair(pk, sk, seed) == 0, "crypto_box_seed_keypair");
  require(p2b::server::make_box_key(pk, sk, out), "make_box_key");
}

inline const Keys& keys() {
  static const Keys k = [] {
    install_fixed_randombytes();
    Keys out{};
    box_key_from_seed(0x51, &out.shuffler[0]);
    box_key_from_seed(0x52, &out.shuffler[1]);
    box_key_from_seed(0xA1, &out.analyzer[0]);
    box_key_from_seed(0xA2, &out.analyzer[1]);
    uint8_t seed[crypto_sign_SEEDBYTES];
    std::memset(seed, 0x5C, sizeof seed);
    require(crypto_sign_seed_keypair(out.verify_pk, out.sign_sk, seed) == 0,
            "crypto_sign_seed_keypair");
    // The key p2b_test::saved() MACs with, so its states restore here.
    std::memcpy(out.state_key, p2b_test::test_state_key(), sizeof out.state_key);
    for (int i = 0; i < 2; ++i) {
      uint8_t pk[crypto_sign_PUBLICKEYBYTES];
      std::memset(seed, 0x5A + i, sizeof seed);
      require(crypto_sign_seed_keypair(pk, out.shuffler_sign_sk[i], seed) == 0,
              "crypto_sign_seed_keypair");
      require(p2b::server::make_verify_key(pk, &out.shuffler_verify[i]), "make_verify_key");
    }
    return out;
  }();
  return k;
}

// Small enough that init, save and restore cost microseconds, big enough that
// every loop of the formats runs more than once.
constexpr uint32_t kDim = 4;
constexpr uint32_t kActions = 3;
constexpr uint32_t kCodes = 8;
constexpr uint64_t kCodebookSeed = 0xC0DEB00C;

inline const std::vector<float>& codebook() {
  static const std::vector<float> c = p2b_test::random_codebook(kCodes, kDim, kCodebookSeed);
  return c;
}

// The agent of fuzz_model_bundle and fuzz_state. Saved state is bound to the
// whole configuration (its digest), so the generator must use this too.
inline p2b_config agent_config() {
  const Keys& k = keys();
  p2b_config cfg;
  if (p2b_config_default(&cfg) != P2B_OK) std::abort();
  cfg.dim = kDim;
  cfg.n_actions = kActions;
  cfg.centroids = codebook().data();
  cfg.n_codes = kCodes;
  cfg.window = 2;
  cfg.participation = 0.9;
  cfg.pending_capacity = 4;
  cfg.outbox_capacity = 2;
  cfg.rng_mode = P2B_RNG_SEEDED;
  cfg.seed = 0xF022;
  cfg.shuffler_public_key = k.shuffler[1].pk;
  cfg.analyzer_public_key = k.analyzer[1].pk;
  cfg.analyzer_verify_key = k.verify_pk;
  return cfg;
}

// One arena, reused: init() sets a fresh agent up in it, so no input sees
// what an earlier one left behind.
class FixedAgent {
 public:
  explicit FixedAgent(const p2b_config& cfg) : cfg_(cfg) {
    require(p2b_agent_footprint(&cfg_, &bytes_) == P2B_OK, "footprint");
    mem_ = p2b_test::aligned_arena(bytes_);
  }
  p2b_agent* init() {
    p2b_agent* ag = nullptr;
    require(p2b_agent_init(mem_.get(), bytes_, &cfg_, &ag) == P2B_OK, "agent init");
    return ag;
  }

 private:
  p2b_config cfg_;
  size_t bytes_ = 0;
  p2b_test::ArenaPtr mem_;
};

// An agent's own saved state must always restore: anything else would lose
// its learning at the next restart. `spare` has the same configuration.
inline void require_restorable(const p2b_agent* ag, FixedAgent& spare, const char* what) {
  const std::vector<uint8_t> state = p2b_test::saved(ag);
  const p2b_status st =
      p2b_agent_restore(spare.init(), keys().state_key, state.data(), state.size());
  if (st != P2B_OK) std::fprintf(stderr, "restore: %s\n", p2b_status_str(st));
  require(st == P2B_OK, what);
}

// The first input byte picks a mode; the rest is the payload.
struct Input {
  unsigned mode;
  const uint8_t* data;
  size_t size;
};
inline bool split_mode(const uint8_t* data, size_t size, unsigned n_modes, Input* in) {
  if (size == 0) return false;
  *in = Input{data[0] % n_modes, data + 1, size - 1};
  return true;
}

// fp || crypto_box_seal(payload zero-padded or cut to plain_len): the framing
// a device gives any plaintext. `out` gets 16 + plain_len + 48 bytes.
inline void seal_layer(const Input& in, size_t plain_len, const p2b::server::BoxKey& key,
                       uint8_t* out) {
  uint8_t plain[p2b::kOuterPlainBytes] = {};
  require(plain_len <= sizeof plain, "plain_len");
  std::memcpy(plain, in.data, in.size < plain_len ? in.size : plain_len);
  std::memcpy(out, key.fp, p2b::kFingerprintBytes);
  require(crypto_box_seal(out + p2b::kFingerprintBytes, plain, plain_len, key.pk) == 0,
          "crypto_box_seal");
}

}  // namespace p2b_fuzz
