// Build-time limits and the run-time configuration of one agent.
#pragma once

#include <cstddef>
#include <cstdint>

#include "p2b/crypto.hpp"
#include "p2b_build_config.h"

namespace p2b {

#if defined(P2B_USE_DOUBLE)
using real = double;
#else
using real = float;
#endif

// Compiled maxima, from p2b_build_config.h (overridable through
// P2B_USER_CONFIG_FILE). They bound stack use and keep every loop count known.
constexpr uint32_t kMaxDim = P2B_MAX_DIM;
constexpr uint32_t kMaxActions = P2B_MAX_ACTIONS;
constexpr uint32_t kMaxCodes = P2B_MAX_CODES;
constexpr uint32_t kMaxDigits = P2B_MAX_DIGITS;
constexpr uint32_t kMaxWindow = P2B_MAX_WINDOW;
constexpr uint32_t kMaxPending = P2B_MAX_PENDING;
constexpr uint32_t kMaxOutbox = P2B_MAX_OUTBOX;

// Every arena and every block inside it is aligned to this many bytes.
constexpr std::size_t kArenaAlign = P2B_ARENA_ALIGN;

enum class Policy : uint32_t { linucb = 0, lints = 1 };

// Port interface for randomness: fill `len` bytes, return 0 on success.
// libsodium's randombytes_buf backs it on POSIX (ports/posix).
struct RandomSource {
  int (*fill)(void* ctx, uint8_t* out, std::size_t len) = nullptr;
  void* ctx = nullptr;
};

struct Config {
  uint32_t dim = 0;        // d
  uint32_t n_actions = 0;  // K
  Policy policy = Policy::linucb;
  double alpha = 1.0;         // LinUCB exploration weight
  double ridge_lambda = 1.0;  // A_a starts at lambda * I
  double ts_scale = 0.1;      // LinTS: mu ~ N(theta, v^2 A^-1)

  uint32_t round_digits = 1;   // q
  uint32_t window = 10;        // t
  double participation = 0.5;  // p
  double neg_rate = 0.05;
  double epsilon_budget = 1e300;  // effectively unlimited unless set

  uint32_t pending_capacity = 16;
  uint32_t outbox_capacity = 4;

  // Codebook: n_codes x dim centroids, row-major, copied into the arena at init.
  const float* centroids = nullptr;
  uint32_t n_codes = 0;

  // Randomness: a seeded deterministic generator (tests, simulation) or the
  // random source (production CSPRNG).
  bool deterministic = false;
  uint64_t seed = 0;
  RandomSource random{};

  // Keys of the deployment (kPublicKeyBytes each, copied at init): reports are
  // sealed to the shuffler's and the analyzer's X25519 keys; warm-start models
  // must carry the analyzer's Ed25519 signature.
  const uint8_t* shuffler_public_key = nullptr;
  const uint8_t* analyzer_public_key = nullptr;
  const uint8_t* analyzer_verify_key = nullptr;
  CryptoPort crypto{};

  // Warm-start models: raw-baseline models (non-private, experiments only)
  // are refused unless allowed here; a version below the floor is refused.
  bool accept_baseline_models = false;
  uint64_t min_model_version = 0;
};

}  // namespace p2b
