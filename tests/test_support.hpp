// Helpers shared by the GoogleTest suites: aligned arenas, codebooks and
// contexts on the simplex, all reproducible from a seed.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include <gtest/gtest.h>
#include <sodium.h>

#include "p2b.h"
#include "p2b/crypto.hpp"

namespace p2b_test {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using ArenaPtr = std::unique_ptr<void, FreeDeleter>;

inline ArenaPtr aligned_arena(size_t bytes) {
  void* p = nullptr;
  const size_t rounded = (bytes + P2B_ARENA_ALIGN - 1) / P2B_ARENA_ALIGN * P2B_ARENA_ALIGN;
  if (posix_memalign(&p, P2B_ARENA_ALIGN, rounded == 0 ? P2B_ARENA_ALIGN : rounded) != 0) {
    std::abort();
  }
  return ArenaPtr(p);
}

// Uniform point on the probability simplex (flat Dirichlet).
inline std::vector<float> simplex_point(std::mt19937_64& rng, uint32_t d) {
  std::vector<float> x(d);
  double sum = 0.0;
  std::vector<double> e(d);
  for (uint32_t i = 0; i < d; ++i) {
    const double u = (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53;
    e[i] = -std::log(u);
    sum += e[i];
  }
  for (uint32_t i = 0; i < d; ++i) x[i] = static_cast<float>(e[i] / sum);
  return x;
}

inline std::vector<float> random_codebook(uint32_t k, uint32_t d, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> c;
  c.reserve(static_cast<size_t>(k) * d);
  for (uint32_t i = 0; i < k; ++i) {
    const std::vector<float> p = simplex_point(rng, d);
    c.insert(c.end(), p.begin(), p.end());
  }
  return c;
}

// An agent and the memory it lives in; the codebook outlives init only
// because tests reuse it, the agent itself holds a copy.
struct TestAgent {
  std::vector<float> codebook;
  p2b_config cfg{};
  ArenaPtr mem;
  size_t bytes = 0;
  p2b_agent* agent = nullptr;
};

// libsodium behind the core's crypto port, for tests that call core
// functions directly (the C API finds the same through ports/posix).
inline int sodium_seal(uint8_t* out, const uint8_t* m, size_t len, const uint8_t* pk) {
  return crypto_box_seal(out, m, len, pk);
}
inline int sodium_hash(uint8_t* out, size_t out_len, const uint8_t* m, size_t len) {
  return crypto_generichash(out, out_len, m, len, nullptr, 0);
}
inline int sodium_verify(const uint8_t* sig, const uint8_t* m, size_t len, const uint8_t* pk) {
  return crypto_sign_verify_detached(sig, m, len, pk);
}

inline int sodium_aead_encrypt(uint8_t* out, const uint8_t* m, size_t len, const uint8_t* ad,
                               size_t ad_len, const uint8_t* nonce, const uint8_t* key) {
  return crypto_aead_xchacha20poly1305_ietf_encrypt(out, nullptr, m, len, ad, ad_len, nullptr,
                                                    nonce, key);
}
inline int sodium_aead_decrypt(uint8_t* out, const uint8_t* box, size_t len, const uint8_t* ad,
                               size_t ad_len, const uint8_t* nonce, const uint8_t* key) {
  return crypto_aead_xchacha20poly1305_ietf_decrypt(out, nullptr, nullptr, box, len, ad, ad_len,
                                                    nonce, key);
}
inline int sodium_random(uint8_t* out, size_t len) {
  randombytes_buf(out, len);
  return 0;
}

inline p2b::CryptoPort sodium_port() {
  return p2b::CryptoPort{sodium_seal,         sodium_hash,         sodium_verify,
                         sodium_aead_encrypt, sodium_aead_decrypt, sodium_random};
}

// One deployment's keys for the whole test binary, as p2b-keygen makes them.
struct TestKeys {
  uint8_t shuffler_pk[crypto_box_PUBLICKEYBYTES], shuffler_sk[crypto_box_SECRETKEYBYTES];
  uint8_t analyzer_pk[crypto_box_PUBLICKEYBYTES], analyzer_sk[crypto_box_SECRETKEYBYTES];
  uint8_t verify_pk[crypto_sign_PUBLICKEYBYTES], sign_sk[crypto_sign_SECRETKEYBYTES];
  // The shuffler's batch-signing pair (shuffler.sign.{pk,sk}).
  uint8_t shuffler_verify_pk[crypto_sign_PUBLICKEYBYTES];
  uint8_t shuffler_sign_sk[crypto_sign_SECRETKEYBYTES];
};

inline const TestKeys& test_keys() {
  static const TestKeys keys = [] {
    TestKeys k{};
    if (sodium_init() < 0) std::abort();
    crypto_box_keypair(k.shuffler_pk, k.shuffler_sk);
    crypto_box_keypair(k.analyzer_pk, k.analyzer_sk);
    crypto_sign_keypair(k.verify_pk, k.sign_sk);
    crypto_sign_keypair(k.shuffler_verify_pk, k.shuffler_sign_sk);
    return k;
  }();
  return keys;
}

inline p2b_config base_config(uint32_t d, uint32_t k_actions, uint32_t n_codes, uint64_t seed) {
  p2b_config cfg;
  if (p2b_config_default(&cfg) != P2B_OK) std::abort();
  cfg.shuffler_public_key = test_keys().shuffler_pk;
  cfg.analyzer_public_key = test_keys().analyzer_pk;
  cfg.analyzer_verify_key = test_keys().verify_pk;
  cfg.dim = d;
  cfg.n_actions = k_actions;
  cfg.n_codes = n_codes;
  cfg.rng_mode = P2B_RNG_SEEDED;
  cfg.seed = seed;
  return cfg;
}

// Builds an agent from `cfg` (its centroids are replaced by a random codebook
// unless already set). Aborts the test binary on failure: a helper bug.
inline TestAgent make_agent(p2b_config cfg, uint64_t codebook_seed = 7) {
  TestAgent t;
  if (cfg.centroids == nullptr) {
    t.codebook = random_codebook(cfg.n_codes, cfg.dim, codebook_seed);
    cfg.centroids = t.codebook.data();
  }
  t.cfg = cfg;
  if (p2b_agent_footprint(&t.cfg, &t.bytes) != P2B_OK) std::abort();
  t.mem = aligned_arena(t.bytes);
  if (p2b_agent_init(t.mem.get(), t.bytes, &t.cfg, &t.agent) != P2B_OK) std::abort();
  return t;
}

// The app's state key in tests: it MACs saved states (and encrypts them).
inline const uint8_t* test_state_key() {
  static const uint8_t key[P2B_STATE_KEY_BYTES] = {0x5A, 0x17, 0x42, 0x99, 0x01, 0xC3, 0x7E, 0x28};
  return key;
}

inline std::vector<uint8_t> saved(const p2b_agent* agent) {
  size_t n = 0;
  if (p2b_agent_save_size(agent, &n) != P2B_OK) std::abort();
  std::vector<uint8_t> buf(n);
  size_t written = 0;
  if (p2b_agent_save(agent, test_state_key(), buf.data(), buf.size(), &written) != P2B_OK ||
      written != n) {
    std::abort();
  }
  return buf;
}

// Saved-state surgery for rejection tests (layout: proto/p2b_state.proto).
// Offsets of fields inside the state, all derived from the protobuf framing.
struct StateLayout {
  size_t header_at;  // first byte of the StateHeader message
  size_t header_len;
  size_t first_column_values_at;  // first double of arm 0, column 0 (L00)
};

inline size_t read_varint(const std::vector<uint8_t>& b, size_t at, size_t* value) {
  size_t v = 0, n = 0;
  while (b[at + n] & 0x80) v |= static_cast<size_t>(b[at + n] & 0x7F) << (7 * n), ++n;
  v |= static_cast<size_t>(b[at + n]) << (7 * n);
  *value = v;
  return n + 1;
}

inline StateLayout state_layout(const std::vector<uint8_t>& blob) {
  StateLayout l{};
  size_t len = 0;
  l.header_at = 4 + read_varint(blob, 4, &len);
  l.header_len = len;
  size_t at = l.header_at + len;
  at += read_varint(blob, at, &len);  // StateColumn length
  at += 5 + 5 + 1;                    // arm, column (fixed32 each), values tag
  at += read_varint(blob, at, &len);  // packed values length
  l.first_column_values_at = at;
  return l;
}

// StateHeader fields are fixed-width in field order: the tag byte, then the
// value. These are the value offsets inside the header message.
constexpr size_t kHeaderFormatAt = 1;
constexpr size_t kHeaderReportsAt = 5 + 5 + 9 + 9 + 1;
constexpr size_t kHeaderWindowLenAt = 5 + 5 + 9 * 6 + 1;

// Recomputes the MAC trailer under `key` as docs/formats.md specifies it,
// written here from the spec and not through the library, so that only the
// deliberate change remains.
inline void reseal_state(std::vector<uint8_t>* b, const uint8_t* key = test_state_key()) {
  static const char kLabel[] = "p2b state MAC key v1";
  uint8_t mac_key[32];
  crypto_generichash(mac_key, sizeof mac_key, reinterpret_cast<const uint8_t*>(kLabel),
                     sizeof kLabel - 1, key, P2B_STATE_KEY_BYTES);
  crypto_generichash(b->data() + b->size() - 32, 32, b->data(), b->size() - 32, mac_key,
                     sizeof mac_key);
}

// What the unkeyed format 2 allowed anyone: recompute a plain BLAKE2b-256
// trailer.
inline void rehash_unkeyed(std::vector<uint8_t>* b) {
  crypto_generichash(b->data() + b->size() - 32, 32, b->data(), b->size() - 32, nullptr, 0);
}

// Per-arm means and widths of two agents agree within a relative `tol` on
// `n` random contexts.
inline void expect_same_scores(p2b_agent* x_agent, p2b_agent* y_agent, uint32_t d, uint32_t k_arms,
                               double tol, int n = 30) {
  std::mt19937_64 env(8);
  std::vector<float> m1(k_arms), w1(k_arms), m2(k_arms), w2(k_arms);
  for (int i = 0; i < n; ++i) {
    const std::vector<float> x = simplex_point(env, d);
    if (p2b_agent_scores(x_agent, x.data(), d, m1.data(), w1.data(), k_arms) != P2B_OK ||
        p2b_agent_scores(y_agent, x.data(), d, m2.data(), w2.data(), k_arms) != P2B_OK) {
      ADD_FAILURE() << "p2b_agent_scores failed";
      return;
    }
    for (uint32_t a = 0; a < k_arms; ++a) {
      EXPECT_NEAR(m1[a], m2[a], tol * (1 + std::fabs(m1[a])));
      EXPECT_NEAR(w1[a], w2[a], tol * (1 + std::fabs(w1[a])));
    }
  }
}

// Normalisation exactly as the agent does it (double sum, rounded to real).
template <typename Real>
std::vector<double> normalised_as_agent(const std::vector<float>& x) {
  double s = 0.0;
  for (float v : x) s += static_cast<double>(v);
  std::vector<double> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    out[i] = static_cast<double>(static_cast<Real>(static_cast<double>(x[i]) / s));
  }
  return out;
}

}  // namespace p2b_test
