// What the C API's three translation files (agent, shared model, P-FCB
// agent) share: the status cast, handle resolution, and the randomness and
// crypto fields their configs spell alike. Internal: not installed.
#pragma once

#include <cstdint>

#include "../ports/platform.hpp"
#include "p2b.h"
#include "p2b/crypto.hpp"
#include "p2b/status.hpp"

namespace p2b::capi {

inline p2b_status out(Status s) {
  return static_cast<p2b_status>(static_cast<int32_t>(s));
}

// Resolves a handle to its object, refusing memory that the object's init
// did not set up (Core::check reads the arena's magic and layout).
template <typename Core, typename Handle>
Status resolve(Handle* handle, Core** core) {
  const Status s = Core::check(handle);
  if (s != Status::ok) return s;
  *core = reinterpret_cast<Core*>(const_cast<void*>(static_cast<const void*>(handle)));
  return Status::ok;
}

// rng_mode, seed, random and random_ctx: seeded for tests and simulation,
// else the caller's source or the port's CSPRNG. bad_config when the port
// has none and the caller gave none.
template <typename CConfig, typename CoreConfig>
Status random_to_core(const CConfig& c, CoreConfig* cfg) {
  cfg->deterministic = c.rng_mode == P2B_RNG_SEEDED;
  cfg->seed = c.seed;
  if (c.random != nullptr) {
    cfg->random.fill = c.random;
    cfg->random.ctx = c.random_ctx;
  } else if (!cfg->deterministic && !port::default_random(&cfg->random)) {
    return Status::bad_config;
  }
  return Status::ok;
}

inline CryptoPort crypto_to_core(const p2b_crypto& k) {
  return CryptoPort{k.seal, k.hash, k.verify, k.aead_encrypt, k.aead_decrypt, k.random};
}

}  // namespace p2b::capi
