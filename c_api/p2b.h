/**
 * \file p2b.h
 * \brief The stable C API of p2b, privacy-preserving on-device bandits.
 *
 * p2b runs a contextual bandit (LinUCB or linear Thompson sampling) on the
 * device, learns from this user's feedback only, and now and then releases
 * one (code, action, reward) tuple under the P2B protocol (Malekzadeh et al.,
 * MLSys 2020): contexts are encoded to a k-means code, and participation is
 * randomised with probability p, which bounds the differential-privacy cost
 * of each report. The tuple leaves the device only as a sealed, fixed-length
 * envelope for the deployment's shuffler.
 *
 * \par How to use it
 * The whole life of an agent, as a function an app could call once a
 * codebook and the deployment's three public keys are loaded. This exact
 * code is compiled and run as a test (tests/header_example), so it cannot
 * drift from the API.
 * \code
 * #include <stdio.h>
 * #include <stdlib.h>
 * #include "p2b.h"
 *
 * // codebook: k x 10 floats from p2b_codebook_parse(); the keys: the three
 * // .pk files p2b-keygen wrote; upload: sends one envelope to the shuffler.
 * int personalise(const float *codebook, uint32_t k, const uint8_t shuffler_pk[P2B_KEY_BYTES],
 *                 const uint8_t analyzer_pk[P2B_KEY_BYTES],
 *                 const uint8_t analyzer_sign_pk[P2B_KEY_BYTES],
 *                 void (*upload)(const uint8_t *envelope, size_t len)) {
 *   p2b_config cfg;
 *   if (p2b_config_default(&cfg) != P2B_OK) return -1;
 *   cfg.dim = 10;
 *   cfg.n_actions = 10;
 *   cfg.centroids = codebook; // copied into the arena at init
 *   cfg.n_codes = k;
 *   cfg.shuffler_public_key = shuffler_pk;
 *   cfg.analyzer_public_key = analyzer_pk;
 *   cfg.analyzer_verify_key = analyzer_sign_pk;
 *
 *   size_t bytes = 0; // depends on the shape fields alone
 *   p2b_status s = p2b_agent_footprint(&cfg, &bytes);
 *   if (s != P2B_OK) return fprintf(stderr, "p2b: %s\n", p2b_status_str(s)), -1;
 *   void *mem = aligned_alloc(P2B_ARENA_ALIGN, bytes); // a multiple of the alignment
 *   if (mem == NULL) return -1;
 *   p2b_agent *agent = NULL;
 *   s = p2b_agent_init(mem, bytes, &cfg, &agent);
 *
 *   const float context[10] = {3, 1, 0, 0, 2, 0, 1, 0, 0, 1}; // any scale
 *   for (int i = 0; s == P2B_OK && i < 100; ++i) {
 *     uint32_t action = 0;
 *     uint64_t id = 0;
 *     s = p2b_agent_decide(agent, context, 10, &action, &id); // show `action`
 *     if (s == P2B_OK) s = p2b_agent_reward(agent, id, action == 4 ? 1.0f : 0.0f);
 *   }
 *
 *   uint8_t envelope[P2B_ENVELOPE_BYTES];
 *   size_t n = 0;
 *   while (s == P2B_OK && (s = p2b_agent_poll_envelope(agent, envelope, sizeof envelope, &n)) ==
 *                             P2B_OK) {
 *     upload(envelope, n);
 *   }
 *   if (s == P2B_NO_REPORT || s == P2B_BUDGET_EXHAUSTED) s = P2B_OK; // nothing (more) to send
 *   if (p2b_is_error(s)) fprintf(stderr, "p2b: %s\n", p2b_status_str(s));
 *   free(mem); // the agent lives in `mem`: freeing it destroys the agent
 *   return p2b_is_error(s) ? -1 : 0;
 * }
 * \endcode
 *
 * \par Memory and ownership
 * - The library never allocates. All agent state lives in the arena you pass
 *   to p2b_agent_init(), sized by p2b_agent_footprint() and aligned to
 *   #P2B_ARENA_ALIGN. You own the arena; to destroy an agent, free it. There
 *   is no global state: any number of agents may coexist.
 * - The handle is a pointer into the arena. Do not copy the arena to move an
 *   agent; use p2b_agent_save() and p2b_agent_restore().
 * - Every pointer argument is borrowed for the duration of the call only; the
 *   codebook and the keys, for instance, are copied into the arena at init.
 * - Array arguments always come with their length (or capacity), in
 *   elements. A length that does not match the agent gives
 *   #P2B_ERR_DIMENSION_MISMATCH; a capacity too small gives
 *   #P2B_ERR_BUFFER_TOO_SMALL.
 *
 * \par Errors
 * - Every function that can fail returns a ::p2b_status, and the compiler
 *   warns when a caller ignores it. Zero is success, positive values are
 *   informational (#P2B_NO_REPORT, #P2B_BUDGET_EXHAUSTED), negative values
 *   are errors; p2b_is_error() tells them apart and p2b_status_str() names
 *   them. Each function lists every status it can return.
 * - A call that returns an error leaves the agent exactly as it was.
 * - Every function that takes a handle can also return
 *   #P2B_ERR_NULL_POINTER (a NULL handle) and #P2B_ERR_NOT_INITIALIZED
 *   (memory that p2b_agent_init() did not set up).
 *
 * \par Threads
 * An agent is not thread-safe. Use one agent per thread, or serialise all
 * calls on one agent with your own lock. Distinct agents are independent.
 * Functions that take no agent are thread-safe.
 *
 * \par Randomness
 * By default an agent draws from the platform CSPRNG (libsodium's randombytes
 * on POSIX). For tests and simulation set `cfg.rng_mode = P2B_RNG_SEEDED` and
 * `cfg.seed`: the same seed then gives the same decisions and reports on
 * every platform.
 *
 * \par Compiled limits
 * The maxima (#P2B_MAX_DIM and the others) come from p2b_build_config.h; a
 * firmware build may override them by defining P2B_USER_CONFIG_FILE. The
 * functions p2b_max_dim() and friends report what the linked library was
 * built with.
 *
 * \par Versioning
 * #P2B_VERSION_MAJOR, #P2B_VERSION_MINOR and #P2B_VERSION_PATCH are the only
 * copy of the version; the build reads them from this header. Within a major
 * version, existing functions, structure layouts and status values do not
 * change. Names marked deprecated keep working until 1.0; define
 * P2B_NO_DEPRECATED to hide them.
 */
#ifndef P2B_H
#define P2B_H

#include <stddef.h>
#include <stdint.h>

#include "p2b_build_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \def P2B_API
 *  \brief Marks a function the library exports (the only symbols libp2b.so exports). */
#if defined(_WIN32) && defined(P2B_SHARED_BUILD)
#define P2B_API __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define P2B_API __attribute__((visibility("default")))
#else
#define P2B_API
#endif

/** \def P2B_NODISCARD
 *  \brief Warns when a caller drops a returned status. In C with GCC a (void)
 *  cast does not silence it, on purpose: test the result. */
#if defined(__cplusplus) && __cplusplus >= 201703L
#define P2B_NODISCARD [[nodiscard]]
#elif defined(__GNUC__) || defined(__clang__)
#define P2B_NODISCARD __attribute__((warn_unused_result))
#else
#define P2B_NODISCARD
#endif

/** \def P2B_DEPRECATED
 *  \brief Marks a name kept for compatibility until 1.0; `msg` names its successor. */
#if defined(__GNUC__) || defined(__clang__)
#define P2B_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#define P2B_DEPRECATED(msg)
#endif

/* ---- version -------------------------------------------------------- */

/** \brief Major version: incompatible API or ABI changes. */
#define P2B_VERSION_MAJOR 0
/** \brief Minor version: additions that keep the API and ABI. */
#define P2B_VERSION_MINOR 1
/** \brief Patch version: fixes only. */
#define P2B_VERSION_PATCH 0
/** \brief The version as one number: major * 10000 + minor * 100 + patch. */
#define P2B_VERSION_NUMBER (P2B_VERSION_MAJOR * 10000 + P2B_VERSION_MINOR * 100 + P2B_VERSION_PATCH)
/** \cond INTERNAL */
#define P2B_STRINGIFY_(x) #x
#define P2B_EXPAND_STRINGIFY_(x) P2B_STRINGIFY_(x)
/** \endcond */
/** \brief The version as "major.minor.patch", derived from the numbers. */
#define P2B_VERSION_STRING                 \
  P2B_EXPAND_STRINGIFY_(P2B_VERSION_MAJOR) \
  "." P2B_EXPAND_STRINGIFY_(P2B_VERSION_MINOR) "." P2B_EXPAND_STRINGIFY_(P2B_VERSION_PATCH)

/**
 * \brief Version of the linked library, as #P2B_VERSION_NUMBER.
 * \return The number; compare it with #P2B_VERSION_NUMBER to detect a header
 *         and library mismatch.
 */
P2B_API unsigned p2b_version(void);

/**
 * \brief Version string of the linked library, as #P2B_VERSION_STRING.
 * \return A static string; never NULL.
 */
P2B_API const char* p2b_version_string(void);

/* ---- status --------------------------------------------------------- */

/** \brief What every fallible function returns. */
typedef enum p2b_status {
  P2B_OK = 0,               /**< success */
  P2B_NO_REPORT = 1,        /**< poll: nothing to send right now */
  P2B_BUDGET_EXHAUSTED = 2, /**< poll: privacy budget spent; no more reports ever */

  P2B_ERR_NULL_POINTER = -1,           /**< a required pointer was NULL */
  P2B_ERR_BAD_CONFIG = -2,             /**< a config field or option is out of range */
  P2B_ERR_DIMENSION_MISMATCH = -3,     /**< array length != configured dim / n_actions */
  P2B_ERR_NON_FINITE = -4,             /**< NaN or Inf in the input */
  P2B_ERR_NEGATIVE_CONTEXT = -5,       /**< context entry < 0 */
  P2B_ERR_REWARD_OUT_OF_RANGE = -6,    /**< reward outside [0, 1] */
  P2B_ERR_ACTION_OUT_OF_RANGE = -7,    /**< action >= n_actions */
  P2B_ERR_BUFFER_TOO_SMALL = -8,       /**< output capacity too small */
  P2B_ERR_NOT_INITIALIZED = -9,        /**< handle not set up by p2b_agent_init */
  P2B_ERR_ARENA_TOO_SMALL = -10,       /**< arena smaller than the footprint */
  P2B_ERR_ARENA_MISALIGNED = -11,      /**< arena not P2B_ARENA_ALIGN-aligned */
  P2B_ERR_UNKNOWN_DECISION = -12,      /**< id never issued by this agent */
  P2B_ERR_EXPIRED_DECISION = -13,      /**< id fell out of the pending ring */
  P2B_ERR_ALREADY_REWARDED = -14,      /**< id already rewarded */
  P2B_ERR_CORRUPT_STATE = -15,         /**< saved state truncated or corrupted */
  P2B_ERR_UNSUPPORTED_VERSION = -16,   /**< state, model or file of an unknown format */
  P2B_ERR_STATE_MISMATCH = -17,        /**< saved state of another config/codebook */
  P2B_ERR_NOT_POSITIVE_DEFINITE = -18, /**< imported matrix not SPD */
  P2B_ERR_BAD_CODEBOOK = -19,          /**< codebook has non-finite values */
  P2B_ERR_RANDOM_FAILURE = -20,        /**< the random source failed */
  P2B_ERR_CODE_OUT_OF_RANGE = -21,     /**< code >= n_codes */
  P2B_ERR_CRYPTO_FAILURE = -22,        /**< the crypto port failed */
  P2B_ERR_MALFORMED_INPUT = -23,       /**< not a well-formed p2b message or file */
  P2B_ERR_BAD_SIGNATURE = -24,         /**< model signature fails the pinned key */
  P2B_ERR_MODEL_SHAPE_MISMATCH = -25,  /**< model's dim or n_actions differ */
  P2B_ERR_CODEBOOK_MISMATCH = -26,     /**< model built for another codebook */
  P2B_ERR_MODEL_ROLLBACK = -27,        /**< model version <= the applied one, or < the minimum */
  P2B_ERR_NUMERIC_RANGE = -28,         /**< update would leave the savable range */
  P2B_ERR_MODEL_KIND = -29,            /**< raw-baseline model not accepted, or unknown kind */
  P2B_ERR_MODEL_EXPIRED = -30,         /**< model past its not-after time */
  P2B_ERR_KEY_LIST_ROLLBACK = -31,     /**< key list version <= the applied one */
  P2B_ERR_KEY_LIST_EXPIRED = -32,      /**< key list past its not-after time */
  P2B_ERR_KEY_RETIRED = -33,           /**< envelope sealed to a key the key list dropped */
  P2B_ERR_ITEM_COUNT = -34,            /**< shared model: 0 items, or more than max_items */
  P2B_ERR_REPLAYED = -35 /**< P-FCB: a share not newer than the last applied from its sender */
} p2b_status;

/**
 * \brief Names a status in English.
 * \param s Any value, also one this version does not know.
 * \return A static string; never NULL ("unknown status" for unknown values).
 */
P2B_API const char* p2b_status_str(p2b_status s);

/**
 * \brief Tells errors from success and information.
 * \param s A status.
 * \return 1 if `s` is an error (negative), else 0.
 */
P2B_API int p2b_is_error(p2b_status s);

/* ---- sizes and compiled limits -------------------------------------- */

/* Every size macro has a function twin, for bindings that cannot read
   macros; each returns what the linked library was built with. */

/** \brief Key size in bytes: X25519 box and Ed25519 verify public keys. */
#define P2B_KEY_BYTES 32
/** \brief Fingerprint size in bytes: BLAKE2b-128 of a public key or codebook. */
#define P2B_FINGERPRINT_BYTES 16
/** \brief Size of every sealed report, whatever it holds. */
#define P2B_ENVELOPE_BYTES 208
/** \brief Size of the app's state key: it MACs p2b_agent_save() and encrypts
 *  p2b_agent_save_encrypted(). */
#define P2B_STATE_KEY_BYTES 32
/** \brief Bytes encryption at rest adds to p2b_agent_save_size(). */
#define P2B_STATE_ENCRYPTION_OVERHEAD 44
/** \brief Size of every signed shuffler-key list (docs/formats.md). */
#define P2B_KEY_LIST_BYTES 248

/** \brief #P2B_ARENA_ALIGN. \return The arena alignment in bytes. */
P2B_API size_t p2b_arena_align(void);
/** \brief #P2B_MAX_DIM. \return The largest context dimension d. */
P2B_API uint32_t p2b_max_dim(void);
/** \brief #P2B_MAX_ACTIONS. \return The largest number of actions K. */
P2B_API uint32_t p2b_max_actions(void);
/** \brief #P2B_MAX_CODES. \return The largest codebook size k. */
P2B_API uint32_t p2b_max_codes(void);
/** \brief #P2B_MAX_DIGITS. \return The most decimal digits q kept when encoding. */
P2B_API uint32_t p2b_max_digits(void);
/** \brief #P2B_MAX_WINDOW. \return The longest participation window t. */
P2B_API uint32_t p2b_max_window(void);
/** \brief #P2B_MAX_PENDING. \return The largest pending_capacity. */
P2B_API uint32_t p2b_max_pending(void);
/** \brief #P2B_MAX_OUTBOX. \return The largest outbox_capacity. */
P2B_API uint32_t p2b_max_outbox(void);
/** \brief #P2B_KEY_BYTES. \return The public key size in bytes. */
P2B_API size_t p2b_key_bytes(void);
/** \brief #P2B_FINGERPRINT_BYTES. \return The fingerprint size in bytes. */
P2B_API size_t p2b_fingerprint_bytes(void);
/** \brief #P2B_ENVELOPE_BYTES. \return The size of every sealed envelope. */
P2B_API size_t p2b_envelope_bytes(void);
/** \brief #P2B_STATE_KEY_BYTES. \return The state key size in bytes. */
P2B_API size_t p2b_state_key_bytes(void);
/** \brief #P2B_STATE_ENCRYPTION_OVERHEAD. \return Bytes added by encryption at rest. */
P2B_API size_t p2b_state_encryption_overhead(void);
/** \brief #P2B_KEY_LIST_BYTES. \return The size of a signed shuffler-key list. */
P2B_API size_t p2b_key_list_bytes(void);

/* ---- configuration -------------------------------------------------- */

/** \brief The bandit policy. */
typedef enum p2b_policy {
  P2B_POLICY_LINUCB = 0, /**< LinUCB: theta.x + alpha * sqrt(x^T A^-1 x) */
  P2B_POLICY_LINTS = 1   /**< linear Thompson sampling: mu ~ N(theta, v^2 A^-1) */
} p2b_policy;

/** \brief Where decisions draw their randomness. */
typedef enum p2b_rng_mode {
  P2B_RNG_SYSTEM = 0, /**< the platform CSPRNG, or cfg.random (production) */
  P2B_RNG_SEEDED = 1  /**< a deterministic generator seeded by cfg.seed (tests, simulation) */
} p2b_rng_mode;

/**
 * \brief Crypto primitives, for platforms without libsodium (P2B_PORT=none).
 *
 * Each returns 0 on success. seal: crypto_box_seal semantics, writing len + 48
 * bytes; hash: unkeyed BLAKE2b of out_len bytes; verify: Ed25519 detached;
 * aead_*: XChaCha20-Poly1305-IETF (24-byte nonce, 16-byte tag, in place
 * allowed); random: fresh bytes for nonces. All are required.
 */
typedef struct p2b_crypto {
  /** crypto_box_seal: anonymous encryption of `len` bytes to an X25519 key */
  int (*seal)(uint8_t* out, const uint8_t* msg, size_t len, const uint8_t* recipient_pk);
  /** unkeyed BLAKE2b with an `out_len`-byte digest */
  int (*hash)(uint8_t* out, size_t out_len, const uint8_t* msg, size_t len);
  /** Ed25519 detached verification; 0 only for a valid signature */
  int (*verify)(const uint8_t* sig, const uint8_t* msg, size_t len, const uint8_t* signer_pk);
  /** XChaCha20-Poly1305-IETF encryption, `len` + 16 bytes out */
  int (*aead_encrypt)(uint8_t* out, const uint8_t* msg, size_t len, const uint8_t* ad,
                      size_t ad_len, const uint8_t* nonce, const uint8_t* key);
  /** its inverse; 0 only when the tag verifies */
  int (*aead_decrypt)(uint8_t* out, const uint8_t* box, size_t len, const uint8_t* ad,
                      size_t ad_len, const uint8_t* nonce, const uint8_t* key);
  /** fresh unpredictable bytes for nonces */
  int (*random)(uint8_t* out, size_t len);
} p2b_crypto;

/** \brief A random source: fill `len` bytes at `out`, return 0 on success. */
typedef int (*p2b_random_fn)(void* ctx, uint8_t* out, size_t len);

/**
 * \brief Everything an agent is set up with. Start from p2b_config_default().
 *
 * The ranges below are exactly what p2b_agent_init() enforces; a value
 * outside its range gives #P2B_ERR_BAD_CONFIG. The shape fields (marked
 * "shape") are all p2b_agent_footprint() reads.
 */
typedef struct p2b_config {
  uint32_t dim;        /**< shape: d, context length, 1..P2B_MAX_DIM */
  uint32_t n_actions;  /**< shape: K, 1..P2B_MAX_ACTIONS */
  uint32_t policy;     /**< ::p2b_policy (default LinUCB) */
  double alpha;        /**< LinUCB exploration weight, [0, 1e6] (default 1) */
  double ridge_lambda; /**< A_a starts at lambda*I, [1e-6, 1e6] (default 1) */
  double ts_scale;     /**< LinTS: mu ~ N(theta, v^2 A^-1), v in [0, 1e6] (default 0.1) */

  uint32_t round_digits; /**< q, decimal digits kept when encoding, 1..P2B_MAX_DIGITS (1) */
  uint32_t window;       /**< shape: t, interactions per report decision, 1..P2B_MAX_WINDOW (10) */
  double participation;  /**< p, in (0, 1) (default 0.5) */
  double neg_rate;       /**< chance a report is a zero-reward tuple, [0, 1] (default 0.05) */
  double epsilon_budget; /**< epsilon this agent may spend, > 0; INFINITY: unlimited (default) */

  /** shape: decisions awaiting reward, 1..P2B_MAX_PENDING; the oldest is overwritten (16) */
  uint32_t pending_capacity;
  /** shape: reports awaiting poll, 1..P2B_MAX_OUTBOX; extras are dropped unsent, uncharged (4) */
  uint32_t outbox_capacity;

  const float* centroids; /**< codebook, n_codes x dim finite floats, row-major; copied at init */
  uint32_t n_codes;       /**< shape: k, 1..P2B_MAX_CODES */

  uint32_t rng_mode;    /**< ::p2b_rng_mode (default P2B_RNG_SYSTEM) */
  uint64_t seed;        /**< used when rng_mode == P2B_RNG_SEEDED */
  p2b_random_fn random; /**< optional: replaces the platform CSPRNG */
  void* random_ctx;     /**< passed to `random` */

  /* Deployment keys, P2B_KEY_BYTES each, copied at init (files from p2b-keygen). */
  const uint8_t* shuffler_public_key; /**< X25519: outer layer of every report */
  const uint8_t* analyzer_public_key; /**< X25519: inner layer of every report */
  const uint8_t* analyzer_verify_key; /**< Ed25519: warm-start models must verify */
  const p2b_crypto* crypto;           /**< optional: replaces the platform crypto */

  /** 0 or 1; 1: also apply raw-baseline models (#P2B_MODEL_RAW_BASELINE),
   *  which are NOT private. Experiments only; production keeps 0 (default). */
  uint32_t accept_baseline_models;
  /** models with a lower version are refused with #P2B_ERR_MODEL_ROLLBACK,
   *  also on a fresh device; raise it with each release (default 0) */
  uint64_t min_model_version;
} p2b_config;

/**
 * \brief Fills a configuration with the defaults noted in ::p2b_config.
 *
 * dim, n_actions, centroids, n_codes and the three keys are left zero and
 * must be set before p2b_agent_init().
 * \param cfg The configuration to fill.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER `cfg` is NULL.
 */
P2B_NODISCARD P2B_API p2b_status p2b_config_default(p2b_config* cfg);

/* ---- agent life cycle ----------------------------------------------- */

/** \brief An agent; opaque, it lives inside your arena. */
typedef struct p2b_agent p2b_agent;

/**
 * \brief Exact arena size in bytes for an agent of this shape.
 *
 * Reads only the shape fields: dim, n_actions, n_codes, window,
 * pending_capacity and outbox_capacity. Keys, codebook, crypto and
 * randomness need not be set yet. The size is a multiple of
 * #P2B_ARENA_ALIGN.
 * \param cfg The configuration.
 * \param bytes Receives the size.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER `cfg` or `bytes` is NULL.
 * \retval P2B_ERR_BAD_CONFIG A shape field is out of its range.
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_footprint(const p2b_config* cfg, size_t* bytes);

/**
 * \brief Sets up an agent in caller memory.
 *
 * Validates every field of `cfg`, copies the codebook and keys into `mem`
 * and fingerprints them. On error `*agent` and `mem` are untouched.
 * \param mem The arena, aligned to #P2B_ARENA_ALIGN.
 * \param len Its size, at least p2b_agent_footprint().
 * \param cfg The configuration.
 * \param agent Receives the handle (a pointer into `mem`).
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER `mem`, `cfg`, `agent`, `cfg->centroids` or a key is NULL.
 * \retval P2B_ERR_BAD_CONFIG A field is out of range, or no random source or
 *         crypto is available on this port and none was given.
 * \retval P2B_ERR_BAD_CODEBOOK A centroid value is NaN or infinite.
 * \retval P2B_ERR_ARENA_MISALIGNED `mem` is not aligned to #P2B_ARENA_ALIGN.
 * \retval P2B_ERR_ARENA_TOO_SMALL `len` is below the footprint.
 * \retval P2B_ERR_CRYPTO_FAILURE The crypto port failed to hash a key or the codebook.
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_init(void* mem, size_t len, const p2b_config* cfg,
                                                p2b_agent** agent);

/* ---- decisions ------------------------------------------------------ */

/**
 * \brief Chooses an action for a context. Cost: O(K d^2).
 * \param agent The agent.
 * \param x The context: `len` == dim non-negative finite floats; scale does
 *        not matter, the agent normalises it to sum 1.
 * \param len Its length.
 * \param action Receives the action to show.
 * \param decision_id Receives an id to pass to p2b_agent_reward() later.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 * \retval P2B_ERR_DIMENSION_MISMATCH `len` != dim.
 * \retval P2B_ERR_NON_FINITE `x` holds NaN or Inf.
 * \retval P2B_ERR_NEGATIVE_CONTEXT `x` has a negative entry.
 * \retval P2B_ERR_RANDOM_FAILURE The random source failed (LinTS).
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_decide(p2b_agent* agent, const float* x, size_t len,
                                                  uint32_t* action, uint64_t* decision_id);

/**
 * \brief Rewards an earlier decision.
 *
 * Rewards may come in any order while the decision is among the last
 * pending_capacity ones. Every window-th reward closes a participation
 * window, which may queue a report.
 * \param agent The agent.
 * \param decision_id From p2b_agent_decide().
 * \param reward In [0, 1].
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER `agent` is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 * \retval P2B_ERR_NON_FINITE `reward` is NaN or Inf.
 * \retval P2B_ERR_REWARD_OUT_OF_RANGE `reward` is outside [0, 1].
 * \retval P2B_ERR_UNKNOWN_DECISION The id was never issued by this agent.
 * \retval P2B_ERR_EXPIRED_DECISION The id fell out of the pending ring.
 * \retval P2B_ERR_ALREADY_REWARDED The decision was rewarded already.
 * \retval P2B_ERR_NUMERIC_RANGE The update would push the statistics out of
 *         the range a saved state may hold; honest statistics never get near it.
 * \retval P2B_ERR_RANDOM_FAILURE The random source failed while closing a window.
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_reward(p2b_agent* agent, uint64_t decision_id,
                                                  float reward);

/**
 * \brief Learns from a logged (x, action, reward) without making a decision.
 *
 * Such interactions are never reported.
 * \param agent The agent.
 * \param x The context, as for p2b_agent_decide().
 * \param len Its length, == dim.
 * \param action The action that was taken, < n_actions.
 * \param reward In [0, 1].
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER `agent` or `x` is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 * \retval P2B_ERR_DIMENSION_MISMATCH `len` != dim.
 * \retval P2B_ERR_NON_FINITE `x` or `reward` holds NaN or Inf.
 * \retval P2B_ERR_NEGATIVE_CONTEXT `x` has a negative entry.
 * \retval P2B_ERR_ACTION_OUT_OF_RANGE `action` >= n_actions.
 * \retval P2B_ERR_REWARD_OUT_OF_RANGE `reward` is outside [0, 1].
 * \retval P2B_ERR_NUMERIC_RANGE As for p2b_agent_reward().
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_learn(p2b_agent* agent, const float* x, size_t len,
                                                 uint32_t action, float reward);

/**
 * \brief Erases what the agent has learned about its user.
 *
 * Every arm goes back to the prior lambda*I; pending decisions (their ids
 * then give #P2B_ERR_EXPIRED_DECISION), the open window and unsent reports
 * are cleared. Keeps the configuration, keys, codebook, the random stream,
 * the privacy ledger (epsilon spent stays spent) and the model-version floor
 * of p2b_agent_apply_model(). Use it when a user asks to erase their
 * personalisation. It hashes and copies nothing, so it is far cheaper than a
 * fresh p2b_agent_init() (simulators call it once per simulated user).
 * \param agent The agent.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER `agent` is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_forget(p2b_agent* agent);

/**
 * \brief Per-action estimates for a context, without deciding.
 *
 * The LinUCB score of action a is mean[a] + alpha * width[a].
 * \param agent The agent.
 * \param x The context, as for p2b_agent_decide().
 * \param len Its length, == dim.
 * \param mean Receives theta_a.x for every action.
 * \param width Receives sqrt(x^T A_a^-1 x) for every action.
 * \param cap Capacity of `mean` and `width`, >= n_actions.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 * \retval P2B_ERR_DIMENSION_MISMATCH `len` != dim.
 * \retval P2B_ERR_NON_FINITE `x` holds NaN or Inf.
 * \retval P2B_ERR_NEGATIVE_CONTEXT `x` has a negative entry.
 * \retval P2B_ERR_BUFFER_TOO_SMALL `cap` < n_actions.
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_scores(p2b_agent* agent, const float* x, size_t len,
                                                  float* mean, float* width, size_t cap);

/* ---- reports -------------------------------------------------------- */

/** \brief One report in plaintext: what the sealed envelope carries. */
typedef struct p2b_tuple {
  uint32_t code;   /**< k-means code of the context */
  uint32_t action; /**< action taken */
  float reward;    /**< reward observed */
} p2b_tuple;

/**
 * \brief Takes the next report to send, sealed for the shuffler.
 *
 * Upload the bytes as they are. A report is dequeued only once sealed, so a
 * failing crypto port loses nothing.
 * \param agent The agent.
 * \param envelope Receives exactly #P2B_ENVELOPE_BYTES bytes.
 * \param cap Its capacity.
 * \param written Receives the number of bytes written.
 * \retval P2B_OK An envelope was written.
 * \retval P2B_NO_REPORT Nothing to send right now.
 * \retval P2B_BUDGET_EXHAUSTED The epsilon budget is spent: never any more reports.
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 * \retval P2B_ERR_BUFFER_TOO_SMALL `cap` < #P2B_ENVELOPE_BYTES.
 * \retval P2B_ERR_CRYPTO_FAILURE The crypto port failed to seal.
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_poll_envelope(p2b_agent* agent, uint8_t* envelope,
                                                         size_t cap, size_t* written);

/**
 * \brief Takes the next report from the same queue, in plaintext.
 *
 * For simulators and tests only. Never send it: it would bypass the
 * shuffler's anonymity.
 * \param agent The agent.
 * \param tuple Receives the report.
 * \retval P2B_OK A report was taken.
 * \retval P2B_NO_REPORT Nothing to take right now.
 * \retval P2B_BUDGET_EXHAUSTED The epsilon budget is spent.
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_poll_tuple(p2b_agent* agent, p2b_tuple* tuple);

/**
 * \brief Bytes of one envelope under `cfg`.
 *
 * #P2B_ENVELOPE_BYTES in this version, for every configuration; `cfg` is not
 * validated.
 * \param cfg The configuration.
 * \param bytes Receives the size.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER `cfg` or `bytes` is NULL.
 */
P2B_NODISCARD P2B_API p2b_status p2b_envelope_size(const p2b_config* cfg, size_t* bytes);

/** \brief Fingerprints of what an agent was set up with. */
typedef struct p2b_fingerprints {
  uint8_t shuffler[P2B_FINGERPRINT_BYTES];        /**< of the shuffler's X25519 key */
  uint8_t analyzer[P2B_FINGERPRINT_BYTES];        /**< of the analyzer's X25519 key */
  uint8_t analyzer_verify[P2B_FINGERPRINT_BYTES]; /**< of the analyzer's Ed25519 key */
  uint8_t codebook[P2B_FINGERPRINT_BYTES];        /**< of the codebook, as in its file */
} p2b_fingerprints;

/**
 * \brief Fingerprints of the keys and the codebook the agent was set up with.
 *
 * `shuffler` is the key new envelopes are sealed to: the configured one, or
 * the current key of the last list p2b_agent_apply_key_list() applied.
 * \param agent The agent.
 * \param out Receives them.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_fingerprints(const p2b_agent* agent,
                                                        p2b_fingerprints* out);

/**
 * \brief Fingerprint of any public key: BLAKE2b-128 of its 32 bytes.
 *
 * Works on every port (the hash is built into the library), so an app can
 * check a pinned key before it has a crypto port.
 * \param public_key #P2B_KEY_BYTES bytes.
 * \param fingerprint Receives #P2B_FINGERPRINT_BYTES bytes.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 */
P2B_NODISCARD P2B_API p2b_status p2b_key_fingerprint(const uint8_t* public_key,
                                                     uint8_t fingerprint[P2B_FINGERPRINT_BYTES]);

/** \brief The agent's privacy ledger. */
typedef struct p2b_privacy {
  double epsilon_per_report;    /**< ln(p(2-p)/(1-p) + (1-p)) */
  double epsilon_spent;         /**< reports * epsilon_per_report */
  double epsilon_budget;        /**< as configured */
  uint64_t reports;             /**< tuples released so far */
  uint64_t windows_closed;      /**< participation decisions made */
  uint64_t dropped_outbox_full; /**< reports dropped (unsent, uncharged): outbox full */
  int exhausted;                /**< 1 once no further report fits the budget */
} p2b_privacy;

/**
 * \brief Reads the privacy ledger.
 * \param agent The agent.
 * \param out Receives the ledger.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_privacy(const p2b_agent* agent, p2b_privacy* out);

/**
 * \brief Epsilon of one report for a participation probability.
 * \param p The participation probability, in (0, 1).
 * \param epsilon Receives ln(p(2-p)/(1-p) + (1-p)).
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER `epsilon` is NULL.
 * \retval P2B_ERR_BAD_CONFIG `p` is not in (0, 1).
 */
P2B_NODISCARD P2B_API p2b_status p2b_epsilon_per_report(double p, double* epsilon);

/* ---- encoder -------------------------------------------------------- */

/**
 * \brief The code the agent would report for a context.
 * \param agent The agent.
 * \param x The context, as for p2b_agent_decide().
 * \param len Its length, == dim.
 * \param code Receives the code, < n_codes.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 * \retval P2B_ERR_DIMENSION_MISMATCH `len` != dim.
 * \retval P2B_ERR_NON_FINITE `x` holds NaN or Inf.
 * \retval P2B_ERR_NEGATIVE_CONTEXT `x` has a negative entry.
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_encode(const p2b_agent* agent, const float* x,
                                                  size_t len, uint32_t* code);

/**
 * \brief The centroid of a code.
 * \param agent The agent.
 * \param code A code, < n_codes.
 * \param out Receives dim floats.
 * \param len Its length, == dim.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 * \retval P2B_ERR_CODE_OUT_OF_RANGE `code` >= n_codes.
 * \retval P2B_ERR_DIMENSION_MISMATCH `len` != dim.
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_centroid(const p2b_agent* agent, uint32_t code,
                                                    float* out, size_t len);

/* ---- warm start ----------------------------------------------------- */

/** \brief How p2b_agent_import() reads its matrices. */
typedef enum p2b_stats_form {
  /** A_a itself: symmetric positive definite */
  P2B_STATS_GRAM = 0,
  /** lower L_a with A_a = L_a L_a^T; the upper part must be finite and is ignored */
  P2B_STATS_CHOLESKY = 1
} p2b_stats_form;

/**
 * \brief Replaces every arm's statistics. All-or-nothing.
 *
 * A_a must include the ridge prior (lambda I). Local learning goes on from
 * the imported model.
 * \param agent The agent.
 * \param a n_actions matrices of dim x dim, column-major, one after another.
 * \param b n_actions vectors of dim.
 * \param n_actions Must equal the agent's.
 * \param dim Must equal the agent's.
 * \param form A ::p2b_stats_form.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 * \retval P2B_ERR_BAD_CONFIG `form` is not a ::p2b_stats_form.
 * \retval P2B_ERR_DIMENSION_MISMATCH `n_actions` or `dim` differ from the agent's.
 * \retval P2B_ERR_NON_FINITE A value is NaN, infinite or beyond the savable range.
 * \retval P2B_ERR_NOT_POSITIVE_DEFINITE A matrix is not symmetric positive definite.
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_import(p2b_agent* agent, const double* a,
                                                  const double* b, uint32_t n_actions, uint32_t dim,
                                                  uint32_t form);

/**
 * \brief Writes every arm's A_a (as #P2B_STATS_GRAM) and b_a, laid out as for
 *        p2b_agent_import().
 * \param agent The agent.
 * \param a Receives n_actions * dim * dim doubles.
 * \param b Receives n_actions * dim doubles.
 * \param n_actions Must equal the agent's.
 * \param dim Must equal the agent's.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 * \retval P2B_ERR_DIMENSION_MISMATCH `n_actions` or `dim` differ from the agent's.
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_export(const p2b_agent* agent, double* a, double* b,
                                                  uint32_t n_actions, uint32_t dim);

/** \brief What a warm-start model was built from (its header's kind). */
typedef enum p2b_model_kind {
  P2B_MODEL_PRIVATE = 0,     /**< shuffled, thresholded P2B reports: what devices apply */
  P2B_MODEL_RAW_BASELINE = 1 /**< raw tuples, not private: experiments only */
} p2b_model_kind;

/**
 * \brief Verifies and applies a signed warm-start model bundle, as the
 *        analyzer serves it, when the app knows no time. All-or-nothing.
 *
 * Checks, in order: the Ed25519 signature by the pinned analyzer_verify_key,
 * the format (2), the agent's dim and n_actions, its codebook's fingerprint,
 * the kind (#P2B_MODEL_PRIVATE; #P2B_MODEL_RAW_BASELINE only with
 * cfg.accept_baseline_models), and a version newer than the last model of
 * that kind applied and not below cfg.min_model_version. It is
 * p2b_agent_apply_model_at() with an unknown time: a bundle's not-after time
 * is NOT checked. Apps that have a trustworthy clock should call
 * p2b_agent_apply_model_at().
 * \param agent The agent.
 * \param bundle The bundle's bytes.
 * \param len Their number.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 * \retval P2B_ERR_MALFORMED_INPUT Not a well-formed bundle.
 * \retval P2B_ERR_BAD_SIGNATURE The signature fails the pinned key.
 * \retval P2B_ERR_UNSUPPORTED_VERSION A bundle format this version does not know.
 * \retval P2B_ERR_MODEL_SHAPE_MISMATCH Another dim or n_actions.
 * \retval P2B_ERR_CODEBOOK_MISMATCH Built for another codebook.
 * \retval P2B_ERR_MODEL_KIND A raw-baseline model this agent does not accept,
 *         or a kind this version does not know.
 * \retval P2B_ERR_MODEL_ROLLBACK Not newer than the model of its kind applied
 *         last, or below cfg.min_model_version.
 * \retval P2B_ERR_NOT_POSITIVE_DEFINITE An arm's matrix is not positive definite.
 * \retval P2B_ERR_DIMENSION_MISMATCH dim is above the 64 values a saved row holds (only
 *         possible with P2B_MAX_DIM raised above 64 in p2b_build_config.h).
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_apply_model(p2b_agent* agent, const uint8_t* bundle,
                                                       size_t len);

/**
 * \brief p2b_agent_apply_model(), also refusing a bundle whose not-after time
 *        is set and earlier than `now_unix`. All-or-nothing.
 *
 * The core has no clock: pass the app's time (a server-confirmed one if the
 * device clock may be set back).
 * \param agent The agent.
 * \param bundle The bundle's bytes.
 * \param len Their number.
 * \param now_unix The current time, in seconds since the Unix epoch.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 * \retval P2B_ERR_MALFORMED_INPUT Not a well-formed bundle.
 * \retval P2B_ERR_BAD_SIGNATURE The signature fails the pinned key.
 * \retval P2B_ERR_UNSUPPORTED_VERSION A bundle format this version does not know.
 * \retval P2B_ERR_MODEL_SHAPE_MISMATCH Another dim or n_actions.
 * \retval P2B_ERR_CODEBOOK_MISMATCH Built for another codebook.
 * \retval P2B_ERR_MODEL_KIND A raw-baseline model this agent does not accept,
 *         or a kind this version does not know.
 * \retval P2B_ERR_MODEL_EXPIRED The bundle's not-after time is before `now_unix`.
 * \retval P2B_ERR_MODEL_ROLLBACK Not newer than the model of its kind applied
 *         last, or below cfg.min_model_version.
 * \retval P2B_ERR_NOT_POSITIVE_DEFINITE An arm's matrix is not positive definite.
 * \retval P2B_ERR_DIMENSION_MISMATCH dim is above the 64 values a saved row holds (only
 *         possible with P2B_MAX_DIM raised above 64 in p2b_build_config.h).
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_apply_model_at(p2b_agent* agent, const uint8_t* bundle,
                                                          size_t len, uint64_t now_unix);

/**
 * \brief Version of the last private model applied (0: none).
 *
 * Saved with the agent, so anti-rollback survives restarts.
 * \param agent The agent.
 * \param version Receives the version.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_model_version(const p2b_agent* agent, uint64_t* version);

/**
 * \brief Version of the last model of a kind applied (0: none).
 *
 * Each kind has its own version, saved with the agent, so an accepted raw
 * baseline never locks out a private model.
 * \param agent The agent.
 * \param kind A ::p2b_model_kind.
 * \param version Receives the version.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 * \retval P2B_ERR_MODEL_KIND `kind` is not a ::p2b_model_kind.
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_model_version_of(const p2b_agent* agent, uint32_t kind,
                                                            uint64_t* version);

/* ---- shuffler key lists --------------------------------------------- */

/**
 * \brief Verifies and applies a signed shuffler-key list (#P2B_KEY_LIST_BYTES,
 *        made by `p2b-keylist`, docs/keys.md). All-or-nothing.
 *
 * The list is signed with the analyzer's model-signing key, which the agent
 * pins (cfg.analyzer_verify_key); the signature is checked before any field
 * is read. From then on p2b_agent_poll_envelope() seals to the list's
 * current key, also the reports already waiting in the outbox (they are
 * kept unsealed until polled), and p2b_agent_envelope_key_accepted() accepts
 * envelopes sealed to any key of the list. The list's version is saved with
 * the agent, so an older list is refused after a restart too.
 * The core has no clock: pass the app's time (a server-confirmed one if the
 * device clock may be set back); 0 skips the not-after check.
 * \param agent The agent.
 * \param list The list's bytes.
 * \param len Their number, #P2B_KEY_LIST_BYTES.
 * \param now_unix The current time, in seconds since the Unix epoch.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 * \retval P2B_ERR_MALFORMED_INPUT Not a well-formed list (wrong length or
 *         magic, a bad field, a repeated or zero key), or signed by the pinned
 *         key yet naming another signer.
 * \retval P2B_ERR_BAD_SIGNATURE The signature fails the pinned key.
 * \retval P2B_ERR_UNSUPPORTED_VERSION A list format this version does not know.
 * \retval P2B_ERR_KEY_LIST_EXPIRED The list's not-after time is before `now_unix`.
 * \retval P2B_ERR_KEY_LIST_ROLLBACK Its version is not above the one applied.
 * \retval P2B_ERR_CRYPTO_FAILURE The crypto port failed to hash a key.
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_apply_key_list(p2b_agent* agent, const uint8_t* list,
                                                          size_t len, uint64_t now_unix);

/**
 * \brief Version of the last shuffler-key list applied (0: none, so the
 *        configured shuffler key is current).
 * \param agent The agent.
 * \param version Receives the version.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_key_list_version(const p2b_agent* agent,
                                                            uint64_t* version);

/**
 * \brief Whether an envelope the app holds may still be sent: its shuffler
 *        key (named in clear at its front) is one the applied list accepts.
 *
 * The shuffler refuses an envelope sealed to a retired key (HTTP 421) and
 * will never take it: drop it unsent. Its report was already counted in
 * the privacy ledger when it was released to the outbox; dropping it
 * spends nothing more, and the budget is not refunded.
 * \param agent The agent.
 * \param envelope The envelope p2b_agent_poll_envelope() wrote.
 * \param len Its length, #P2B_ENVELOPE_BYTES.
 * \retval P2B_OK The current key or a still-accepted one: send it.
 * \retval P2B_ERR_KEY_RETIRED A key the applied list no longer accepts: drop it.
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 * \retval P2B_ERR_MALFORMED_INPUT `len` is not #P2B_ENVELOPE_BYTES.
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_envelope_key_accepted(const p2b_agent* agent,
                                                                 const uint8_t* envelope,
                                                                 size_t len);

/* ---- codebook files ------------------------------------------------- */

/** \brief What a codebook file describes. */
typedef struct p2b_codebook_info {
  uint32_t k;                                 /**< codes */
  uint32_t dim;                               /**< d */
  uint32_t digits;                            /**< q */
  uint8_t fingerprint[P2B_FINGERPRINT_BYTES]; /**< binds k, d, q and every centroid bit */
} p2b_codebook_info;

/**
 * \brief Parses a codebook file (the format shared with the trainer and the
 *        analyzer), checking every field and the fingerprint.
 *
 * Works on every port. Set cfg.centroids from the result. On failure
 * `centroids` may be partly written and must not be used.
 * \param file The file's bytes.
 * \param len Their number.
 * \param centroids Receives k x dim floats, row-major.
 * \param cap Its capacity in floats.
 * \param info Receives k, dim, q and the fingerprint.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_MALFORMED_INPUT Not a well-formed codebook file, or the
 *         fingerprint does not match the content.
 * \retval P2B_ERR_UNSUPPORTED_VERSION A file format this version does not know.
 * \retval P2B_ERR_BUFFER_TOO_SMALL `cap` < k * dim.
 */
P2B_NODISCARD P2B_API p2b_status p2b_codebook_parse(const uint8_t* file, size_t len,
                                                    float* centroids, size_t cap,
                                                    p2b_codebook_info* info);

/* ---- persistence ---------------------------------------------------- */

/**
 * \brief Bytes p2b_agent_save() writes: fixed for a given configuration.
 * \param agent The agent.
 * \param bytes Receives the size.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 * \retval P2B_ERR_DIMENSION_MISMATCH dim is above the 64 values a saved row holds (only
 *         possible with P2B_MAX_DIM raised above 64 in p2b_build_config.h).
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_save_size(const p2b_agent* agent, size_t* bytes);

/**
 * \brief Serialises the learned state, keyed to the device.
 *
 * Protobuf (proto/p2b_state.proto) with a keyed BLAKE2b-256 MAC under a
 * subkey of `key`; includes the applied model versions, the applied
 * shuffler-key list and the privacy ledger. Without the key, the state
 * cannot be edited (say, to fewer reports) and made valid again. What the
 * MAC cannot stop: deleting the state, or restoring an OLDER state saved
 * under the same key, resets the privacy ledger (and the applied versions)
 * to that point. Only storage with rollback protection
 * prevents that, which is the app's job. The bytes are not secret: use
 * p2b_agent_save_encrypted() to hide them.
 * \param agent The agent.
 * \param key #P2B_STATE_KEY_BYTES bytes, one per device, kept in the platform
 *        keystore; the same key may serve p2b_agent_save_encrypted().
 * \param buf Receives p2b_agent_save_size() bytes.
 * \param cap Its capacity.
 * \param written Receives the number of bytes written.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 * \retval P2B_ERR_BUFFER_TOO_SMALL `cap` < p2b_agent_save_size().
 * \retval P2B_ERR_DIMENSION_MISMATCH dim is above the 64 values a saved row holds (only
 *         possible with P2B_MAX_DIM raised above 64 in p2b_build_config.h).
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_save(const p2b_agent* agent,
                                                const uint8_t key[P2B_STATE_KEY_BYTES], void* buf,
                                                size_t cap, size_t* written);

/**
 * \brief Restores state saved by an agent with the same configuration and
 *        codebook under the same key into `agent` (already initialised).
 *        All-or-nothing.
 *
 * A wrong key and any edit both give #P2B_ERR_CORRUPT_STATE. An intact state
 * of an older format (with the unkeyed hash of p2b 0.1) gives
 * #P2B_ERR_UNSUPPORTED_VERSION; one saved before key lists existed restores
 * as "no key list applied", keeping the configured shuffler key.
 * \param agent The agent.
 * \param key The key the state was saved under.
 * \param buf The saved bytes.
 * \param len Their number.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 * \retval P2B_ERR_CORRUPT_STATE Wrong key, edited, truncated or out-of-range state.
 * \retval P2B_ERR_UNSUPPORTED_VERSION A state format this version does not know.
 * \retval P2B_ERR_STATE_MISMATCH Saved under another configuration or codebook.
 * \retval P2B_ERR_DIMENSION_MISMATCH dim is above the 64 values a saved row holds (only
 *         possible with P2B_MAX_DIM raised above 64 in p2b_build_config.h).
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_restore(p2b_agent* agent,
                                                   const uint8_t key[P2B_STATE_KEY_BYTES],
                                                   const void* buf, size_t len);

/**
 * \brief Bytes p2b_agent_save_encrypted() writes: p2b_agent_save_size() +
 *        #P2B_STATE_ENCRYPTION_OVERHEAD.
 * \param agent The agent.
 * \param bytes Receives the size.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 * \retval P2B_ERR_DIMENSION_MISMATCH dim is above the 64 values a saved row holds (only
 *         possible with P2B_MAX_DIM raised above 64 in p2b_build_config.h).
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_save_encrypted_size(const p2b_agent* agent,
                                                               size_t* bytes);

/**
 * \brief p2b_agent_save(), sealed in an XChaCha20-Poly1305 box under the
 *        same key, with a fresh random nonce.
 *
 * Hides the state too; the reset p2b_agent_save() describes applies alike.
 * \param agent The agent.
 * \param key #P2B_STATE_KEY_BYTES bytes; keep it in the platform keystore.
 * \param buf Receives p2b_agent_save_encrypted_size() bytes.
 * \param cap Its capacity.
 * \param written Receives the number of bytes written.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 * \retval P2B_ERR_BUFFER_TOO_SMALL `cap` < p2b_agent_save_encrypted_size().
 * \retval P2B_ERR_CRYPTO_FAILURE The crypto port failed to draw a nonce or encrypt.
 * \retval P2B_ERR_DIMENSION_MISMATCH dim is above the 64 values a saved row holds (only
 *         possible with P2B_MAX_DIM raised above 64 in p2b_build_config.h).
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_save_encrypted(const p2b_agent* agent,
                                                          const uint8_t key[P2B_STATE_KEY_BYTES],
                                                          void* buf, size_t cap, size_t* written);

/**
 * \brief Decrypts `buf` IN PLACE (it is overwritten) and restores from it.
 *
 * A wrong key, tampering and corruption all give #P2B_ERR_CORRUPT_STATE.
 * All-or-nothing.
 * \param agent The agent.
 * \param key The key the state was saved under.
 * \param buf The sealed bytes; overwritten.
 * \param len Their number.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 * \retval P2B_ERR_CORRUPT_STATE Wrong key, tampered, truncated or corrupted.
 * \retval P2B_ERR_UNSUPPORTED_VERSION A state format this version does not know.
 * \retval P2B_ERR_STATE_MISMATCH Saved under another configuration or codebook.
 * \retval P2B_ERR_DIMENSION_MISMATCH dim is above the 64 values a saved row holds (only
 *         possible with P2B_MAX_DIM raised above 64 in p2b_build_config.h).
 */
P2B_NODISCARD P2B_API p2b_status p2b_agent_restore_encrypted(p2b_agent* agent,
                                                             const uint8_t key[P2B_STATE_KEY_BYTES],
                                                             uint8_t* buf, size_t len);

/* ---- deprecated names, kept until 1.0 ------------------------------- */

#ifndef P2B_NO_DEPRECATED
/** \brief Deprecated: the plaintext tuple is ::p2b_tuple. */
typedef p2b_tuple p2b_report P2B_DEPRECATED("renamed p2b_tuple");

/**
 * \brief Deprecated: renamed p2b_agent_poll_envelope(), which it calls.
 * \param agent The agent.
 * \param envelope Receives exactly #P2B_ENVELOPE_BYTES bytes.
 * \param cap Its capacity.
 * \param written Receives the number of bytes written.
 * \retval P2B_OK An envelope was written.
 * \retval P2B_NO_REPORT Nothing to send right now.
 * \retval P2B_BUDGET_EXHAUSTED The epsilon budget is spent.
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_agent_init().
 * \retval P2B_ERR_BUFFER_TOO_SMALL `cap` < #P2B_ENVELOPE_BYTES.
 * \retval P2B_ERR_CRYPTO_FAILURE The crypto port failed to seal.
 */
P2B_NODISCARD P2B_API P2B_DEPRECATED("renamed p2b_agent_poll_envelope") p2b_status
    p2b_agent_poll_report(p2b_agent* agent, uint8_t* envelope, size_t cap, size_t* written);
#endif

/* ---- shared-parameter model ------------------------------------------ */

/**
 * \defgroup shared_model Shared-parameter model
 * \brief One ridge model theta over per-item contexts, for vertical
 * federation (O3M) and other cross-silo systems.
 *
 * Where the agent keeps one model per action over one context, this keeps one
 * model for all items and scores K per-item contexts x_1..x_K: LinUCB picks
 * the largest theta.x_i + alpha * sqrt(x_i^T A^-1 x_i), LinTS the largest
 * x_i.mu with mu ~ N(theta, v^2 A^-1); A = lambda I + sum x x^T. Contexts are
 * raw: signed, not normalised, not encoded, and nothing is reported. Each
 * decision costs O(K d^2) through a kept Cholesky factor; no d^3 work after
 * init. The same arena discipline as the agent: size query, init in caller
 * memory, no allocation, and no change of state on any error.
 *
 * Ties: scores within `tie_rel_tol * max(1, |best|)` of the best are tied and
 * the lowest item index among them wins, so two runs whose scores differ only
 * by rounding (a rotated and a central one) pick the same item.
 * @{
 */

/** \brief The arithmetic a shared model keeps its statistics and scores in. */
typedef enum p2b_precision {
  P2B_PRECISION_F32 = 0, /**< float: half the memory, for devices */
  P2B_PRECISION_F64 = 1  /**< double (default): for servers and exact comparisons */
} p2b_precision;

/** \brief #P2B_SHARED_MAX_DIM. \return The largest d of a shared model. */
P2B_API uint32_t p2b_shared_max_dim(void);
/** \brief #P2B_SHARED_MAX_ITEMS. \return The largest max_items of a shared model. */
P2B_API uint32_t p2b_shared_max_items(void);

/**
 * \brief Everything a shared model is set up with. Start from
 * p2b_shared_config_default(); out-of-range values give #P2B_ERR_BAD_CONFIG.
 */
typedef struct p2b_shared_config {
  uint32_t dim;              /**< d, 1..P2B_SHARED_MAX_DIM */
  uint32_t max_items;        /**< most items one decision may score, 1..P2B_SHARED_MAX_ITEMS */
  uint32_t policy;           /**< ::p2b_policy (default LinUCB) */
  double alpha;              /**< LinUCB exploration weight, [0, 1e6] (default 1) */
  double ridge_lambda;       /**< A starts at lambda*I, [1e-6, 1e6] (default 1) */
  double ts_scale;           /**< LinTS: v in [0, 1e6] (default 0.1) */
  double tie_rel_tol;        /**< tie tolerance, [0, 1e-2] (default 0: exact ties only) */
  uint32_t pending_capacity; /**< decisions awaiting reward, 1..P2B_MAX_PENDING (16) */
  uint32_t precision;        /**< ::p2b_precision (default F64) */
  uint32_t rng_mode;         /**< ::p2b_rng_mode (default P2B_RNG_SYSTEM) */
  uint64_t seed;             /**< used when rng_mode == P2B_RNG_SEEDED */
  p2b_random_fn random;      /**< optional: replaces the platform CSPRNG */
  void* random_ctx;          /**< passed to `random` */
  /** optional Ed25519 key (#P2B_KEY_BYTES, copied at init) that signed warm
   *  starts must verify under; NULL (default): p2b_shared_model_apply_model()
   *  refuses every bundle */
  const uint8_t* analyzer_verify_key;
  /** optional: replaces the platform crypto (read only with a verify key) */
  const p2b_crypto* crypto;
  /** warm starts with a lower version are refused with
   *  #P2B_ERR_MODEL_ROLLBACK, also on a fresh model (default 0) */
  uint64_t min_model_version;
} p2b_shared_config;

/** \brief A shared model; opaque, it lives inside your arena. */
typedef struct p2b_shared_model p2b_shared_model;

/**
 * \brief Fills a configuration with the defaults noted in ::p2b_shared_config.
 * dim and max_items are left 0 and must be set.
 * \param cfg The configuration to fill.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER `cfg` is NULL.
 */
P2B_NODISCARD P2B_API p2b_status p2b_shared_config_default(p2b_shared_config* cfg);

/**
 * \brief Exact arena size in bytes for this configuration, a multiple of
 * #P2B_ARENA_ALIGN.
 * \param cfg The configuration.
 * \param bytes Receives the size.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER `cfg` or `bytes` is NULL.
 * \retval P2B_ERR_BAD_CONFIG A field is out of its range, no random source
 *         exists for P2B_RNG_SYSTEM, or a verify key is given and no crypto.
 */
P2B_NODISCARD P2B_API p2b_status p2b_shared_model_footprint(const p2b_shared_config* cfg,
                                                            size_t* bytes);

/**
 * \brief Sets up a shared model in caller memory (A = lambda I, theta = 0).
 * \param mem #P2B_ARENA_ALIGN-aligned memory of at least the footprint.
 * \param len Its size.
 * \param cfg The configuration.
 * \param model Receives the handle, which points into `mem`.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_BAD_CONFIG A field is out of range.
 * \retval P2B_ERR_ARENA_MISALIGNED `mem` is not aligned.
 * \retval P2B_ERR_ARENA_TOO_SMALL `len` is below the footprint.
 * \retval P2B_ERR_CRYPTO_FAILURE The crypto port failed to hash the verify key.
 */
P2B_NODISCARD P2B_API p2b_status p2b_shared_model_init(void* mem, size_t len,
                                                       const p2b_shared_config* cfg,
                                                       p2b_shared_model** model);

/**
 * \brief Scores `n_items` contexts and picks one.
 * \param model The model.
 * \param items n_items x dim finite values, row-major, each |value| <= 1e6.
 * \param n_items 1..max_items.
 * \param dim Must equal the configured d.
 * \param item Receives the index of the chosen item.
 * \param decision_id Receives the id to pass to p2b_shared_model_reward().
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `model` was not set up by p2b_shared_model_init().
 * \retval P2B_ERR_DIMENSION_MISMATCH `dim` is not d.
 * \retval P2B_ERR_ITEM_COUNT `n_items` is 0 or above max_items.
 * \retval P2B_ERR_NON_FINITE A value is NaN or infinite.
 * \retval P2B_ERR_NUMERIC_RANGE A value exceeds 1e6 in magnitude.
 * \retval P2B_ERR_RANDOM_FAILURE LinTS could not draw (system source failed).
 */
P2B_NODISCARD P2B_API p2b_status p2b_shared_model_decide(p2b_shared_model* model,
                                                         const double* items, size_t n_items,
                                                         size_t dim, uint32_t* item,
                                                         uint64_t* decision_id);

/**
 * \brief Learns the reward of a decision: A += x x^T, b += r x for its item.
 * \param model The model.
 * \param decision_id The id p2b_shared_model_decide() gave.
 * \param reward Finite, |reward| <= 1e6.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER `model` is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `model` was not set up by p2b_shared_model_init().
 * \retval P2B_ERR_REWARD_OUT_OF_RANGE `reward` is not finite or too large.
 * \retval P2B_ERR_UNKNOWN_DECISION No decision has this id.
 * \retval P2B_ERR_EXPIRED_DECISION pending_capacity newer decisions replaced it.
 * \retval P2B_ERR_ALREADY_REWARDED It was rewarded before.
 * \retval P2B_ERR_NUMERIC_RANGE The update would leave the statistics' bounds.
 */
P2B_NODISCARD P2B_API p2b_status p2b_shared_model_reward(p2b_shared_model* model,
                                                         uint64_t decision_id, double reward);

/**
 * \brief Learns a logged (context, reward) that no decision produced.
 * \param model The model.
 * \param context dim finite values, each |value| <= 1e6.
 * \param dim Must equal the configured d.
 * \param reward Finite, |reward| <= 1e6.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `model` was not set up by p2b_shared_model_init().
 * \retval P2B_ERR_DIMENSION_MISMATCH `dim` is not d.
 * \retval P2B_ERR_NON_FINITE A context value is NaN or infinite.
 * \retval P2B_ERR_NUMERIC_RANGE A value exceeds 1e6, or the update would leave the bounds.
 * \retval P2B_ERR_REWARD_OUT_OF_RANGE `reward` is not finite or too large.
 */
P2B_NODISCARD P2B_API p2b_status p2b_shared_model_learn(p2b_shared_model* model,
                                                        const double* context, size_t dim,
                                                        double reward);

/**
 * \brief The LinUCB parts of each item's score, without deciding.
 * \param model The model.
 * \param items n_items x dim values, row-major, as for decide.
 * \param n_items 1..max_items.
 * \param dim Must equal the configured d.
 * \param mean NULL or n_items values: theta.x.
 * \param width NULL or n_items values: sqrt(x^T A^-1 x).
 * \param total NULL or n_items values: mean + alpha * width.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER `items` is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `model` was not set up by p2b_shared_model_init().
 * \retval P2B_ERR_DIMENSION_MISMATCH `dim` is not d.
 * \retval P2B_ERR_ITEM_COUNT `n_items` is 0 or above max_items.
 * \retval P2B_ERR_NON_FINITE A value is NaN or infinite.
 * \retval P2B_ERR_NUMERIC_RANGE A value exceeds 1e6 in magnitude.
 */
P2B_NODISCARD P2B_API p2b_status p2b_shared_model_scores(const p2b_shared_model* model,
                                                         const double* items, size_t n_items,
                                                         size_t dim, double* mean, double* width,
                                                         double* total);

/**
 * \brief theta = A^-1 b.
 * \param model The model.
 * \param theta Receives `dim` values.
 * \param dim Must equal the configured d.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `model` was not set up by p2b_shared_model_init().
 * \retval P2B_ERR_DIMENSION_MISMATCH `dim` is not d.
 */
P2B_NODISCARD P2B_API p2b_status p2b_shared_model_theta(const p2b_shared_model* model,
                                                        double* theta, size_t dim);

/**
 * \brief Verifies and applies a signed warm start (a cluster's statistics,
 *        as FCLUB's server keeps them) when the app knows no time.
 *        All-or-nothing.
 *
 * The bundle is the agent's "P2BM" model with one arm: A = lambda I + S and
 * b = u, codebook_fp the 16 ASCII bytes "P2B-SHARED-MODEL", kind 0
 * (docs/formats.md). Checks, in order: a verify key configured, the Ed25519
 * signature by it, the bundle's signer, the format (2), dim and one arm, the
 * marker, the kind, and a version newer than the last applied and not below
 * cfg.min_model_version. Then the model's A and b are the bundle's: what it
 * learned before is replaced (as p2b_agent_apply_model() does); decisions
 * still pending keep their contexts, and their rewards and every later
 * update add to the bundle's statistics. The version is saved with the
 * state. It is p2b_shared_model_apply_model_at() with an unknown time: a
 * bundle's not-after time is NOT checked.
 * \param model The model.
 * \param bundle The bundle's bytes.
 * \param len Their number.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `model` was not set up by p2b_shared_model_init().
 * \retval P2B_ERR_BAD_CONFIG The model was set up without analyzer_verify_key.
 * \retval P2B_ERR_DIMENSION_MISMATCH d is above the 64 values a bundle's column holds.
 * \retval P2B_ERR_MALFORMED_INPUT Not a well-formed bundle, or one naming another signer.
 * \retval P2B_ERR_BAD_SIGNATURE The signature fails the pinned key.
 * \retval P2B_ERR_UNSUPPORTED_VERSION A bundle format this version does not know.
 * \retval P2B_ERR_MODEL_SHAPE_MISMATCH Another dim, or n_actions other than 1.
 * \retval P2B_ERR_CODEBOOK_MISMATCH No shared-model marker (an agent's bundle).
 * \retval P2B_ERR_MODEL_KIND A kind other than 0.
 * \retval P2B_ERR_MODEL_ROLLBACK Not newer than the bundle applied last, or
 *         below cfg.min_model_version.
 * \retval P2B_ERR_NOT_POSITIVE_DEFINITE A is not positive definite within the bounds.
 */
P2B_NODISCARD P2B_API p2b_status p2b_shared_model_apply_model(p2b_shared_model* model,
                                                              const uint8_t* bundle, size_t len);

/**
 * \brief p2b_shared_model_apply_model(), also refusing a bundle whose
 *        not-after time is set and earlier than `now_unix`. All-or-nothing.
 * \param model The model.
 * \param bundle The bundle's bytes.
 * \param len Their number.
 * \param now_unix The current time, in seconds since the Unix epoch.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `model` was not set up by p2b_shared_model_init().
 * \retval P2B_ERR_BAD_CONFIG The model was set up without analyzer_verify_key.
 * \retval P2B_ERR_DIMENSION_MISMATCH d is above the 64 values a bundle's column holds.
 * \retval P2B_ERR_MALFORMED_INPUT Not a well-formed bundle, or one naming another signer.
 * \retval P2B_ERR_BAD_SIGNATURE The signature fails the pinned key.
 * \retval P2B_ERR_UNSUPPORTED_VERSION A bundle format this version does not know.
 * \retval P2B_ERR_MODEL_SHAPE_MISMATCH Another dim, or n_actions other than 1.
 * \retval P2B_ERR_CODEBOOK_MISMATCH No shared-model marker (an agent's bundle).
 * \retval P2B_ERR_MODEL_KIND A kind other than 0.
 * \retval P2B_ERR_MODEL_EXPIRED The bundle's not-after time is before `now_unix`.
 * \retval P2B_ERR_MODEL_ROLLBACK Not newer than the bundle applied last, or
 *         below cfg.min_model_version.
 * \retval P2B_ERR_NOT_POSITIVE_DEFINITE A is not positive definite within the bounds.
 */
P2B_NODISCARD P2B_API p2b_status p2b_shared_model_apply_model_at(p2b_shared_model* model,
                                                                 const uint8_t* bundle, size_t len,
                                                                 uint64_t now_unix);

/**
 * \brief Version of the warm start applied last (0: none).
 *
 * Saved with the state, so anti-rollback survives restarts.
 * \param model The model.
 * \param version Receives the version.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `model` was not set up by p2b_shared_model_init().
 */
P2B_NODISCARD P2B_API p2b_status p2b_shared_model_model_version(const p2b_shared_model* model,
                                                                uint64_t* version);

/**
 * \brief Size of the saved state: 164 + 4 d(d+1) + 8 d + P (16 + 8 d) bytes
 * for d and pending capacity P (docs/formats.md).
 * \param model The model.
 * \param bytes Receives the size.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `model` was not set up by p2b_shared_model_init().
 */
P2B_NODISCARD P2B_API p2b_status p2b_shared_model_save_size(const p2b_shared_model* model,
                                                            size_t* bytes);

/**
 * \brief Writes the state (statistics, pending decisions, random stream)
 * under a keyed BLAKE2b MAC of the app's #P2B_STATE_KEY_BYTES-byte key.
 * \param model The model.
 * \param key The app's #P2B_STATE_KEY_BYTES-byte state key.
 * \param buf Receives the state.
 * \param cap Its capacity.
 * \param written Receives the number of bytes written.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `model` was not set up by p2b_shared_model_init().
 * \retval P2B_ERR_BUFFER_TOO_SMALL `cap` is below p2b_shared_model_save_size().
 */
P2B_NODISCARD P2B_API p2b_status p2b_shared_model_save(const p2b_shared_model* model,
                                                       const uint8_t* key, void* buf, size_t cap,
                                                       size_t* written);

/**
 * \brief Restores a saved state into a model of the same configuration;
 * all or nothing.
 * \param model The model, set up with the saved one's configuration.
 * \param key The state key it was saved under.
 * \param buf The saved state.
 * \param len Its length.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `model` was not set up by p2b_shared_model_init().
 * \retval P2B_ERR_CORRUPT_STATE Another key, any edit, or impossible values.
 * \retval P2B_ERR_UNSUPPORTED_VERSION A format this library does not read.
 * \retval P2B_ERR_STATE_MISMATCH A state of another configuration.
 */
P2B_NODISCARD P2B_API p2b_status p2b_shared_model_restore(p2b_shared_model* model,
                                                          const uint8_t* key, const void* buf,
                                                          size_t len);

/** @} */

/**
 * \defgroup cmab P-FCB: federated procurement under a quality constraint
 * \brief An agent buys units from m producers each round, learns their
 * Bernoulli qualities by UCB, and shares noisy increments of its counts with
 * competing agents (Solanki et al., ECML PKDD 2022).
 *
 * Each round: p2b_cmab_decide() gives the units to procure (one of each in
 * the explore rounds, then the exact LP oracle on the quality UCBs, rounded
 * to integers on the constraint's safe side); p2b_cmab_observe() takes the
 * good units among them. At the schedule's release rounds (a window
 * [window_start, window_stop], doubling) observe draws a share: the
 * increments since the last release plus Gaussian noise calibrated to the
 * round's budget eps_z = eps/(2 log T) + eps/2^(z+1), snapped to integers.
 * p2b_cmab_poll_share() hands it out once, as fixed-length bytes; seal and
 * send it with the relay (docs/pfcb-relay.md). p2b_cmab_apply_share() runs
 * the paper's selective acceptance on a peer's share. The same arena
 * discipline as the agent: size query, init in caller memory, no
 * allocation, and no change of state on any error.
 * @{
 */

/** \brief Largest m: #P2B_CMAB_MAX_PRODUCERS producers. */
#define P2B_CMAB_MAX_PRODUCERS 64
/** \brief Largest number of peers whose shares one agent applies. */
#define P2B_CMAB_MAX_PEERS 1024
/** \brief Largest capacity (units of one producer per round). */
#define P2B_CMAB_MAX_CAPACITY (1u << 20)

/** \brief When an agent releases. */
typedef enum p2b_cmab_schedule {
  /** Alg. 2 as printed: tau = 1, doubling: [200, 40000] releases at 200..207,
   *  256, 512, ..., 32768 (16 releases). */
  P2B_CMAB_SCHEDULE_PAPER = 0,
  /** tau starts at window_start: 200, 400, ..., 25600 (8 releases). */
  P2B_CMAB_SCHEDULE_ALIGNED = 1,
  /** every round of the window (non-private FCB when epsilon is infinite) */
  P2B_CMAB_SCHEDULE_EVERY_ROUND = 2
} p2b_cmab_schedule;

/** \brief The log in the budget split's log T. */
typedef enum p2b_cmab_log_base {
  P2B_CMAB_LOG2 = 0, /**< base 2 (default): the split sums to at most eps */
  P2B_CMAB_LOG_E = 1 /**< natural: overspends; the agent stops at eps */
} p2b_cmab_log_base;

/**
 * \brief Everything a P-FCB agent is set up with. Start from
 * p2b_cmab_config_default(); out-of-range values give #P2B_ERR_BAD_CONFIG.
 */
typedef struct p2b_cmab_config {
  uint32_t producers;       /**< m, 1..P2B_CMAB_MAX_PRODUCERS */
  const double* cost;       /**< m costs per unit, finite, |c| <= 1e6 (copied) */
  const uint32_t* capacity; /**< m capacities, 1..P2B_CMAB_MAX_CAPACITY (copied) */
  double rho;               /**< revenue per unit of quality, (0, 1e6] (default 1) */
  double alpha;             /**< quality threshold, [0, 1] (default 0.4) */
  double quality_margin;    /**< gamma: the oracle aims at alpha + gamma (default 0) */
  uint32_t explore_rounds;  /**< rounds procuring one unit of each (default 10) */
  double ucb_scale;         /**< q+ = q + scale sqrt(3 ln t / 2W), [0, 1e6] (default 1) */
  uint64_t horizon;         /**< T of the budget split, >= 2 (default 100000) */
  uint32_t schedule;        /**< ::p2b_cmab_schedule (default PAPER) */
  uint64_t window_start;    /**< first round that may release, >= 1 (default 200) */
  uint64_t window_stop;     /**< last round that may release (default 40000) */
  uint32_t log_base;        /**< ::p2b_cmab_log_base (default LOG2) */
  double epsilon;           /**< total budget; INFINITY: exact counts; 0: never shares (1) */
  double delta;             /**< per-release delta of the calibration, (0, 1) (0.01) */
  double delta_target;      /**< delta the accountant states eps at, (0, 1) (0.01) */
  /** noise sensitivity: 0 (default) each producer's capacity, as the paper
   *  does (sigma then reveals capacities); else this public bound >= every
   *  capacity */
  uint32_t public_max_capacity;
  double omega1;        /**< acceptance band weight, >= 0, INFINITY accepts all (0.1) */
  double omega2;        /**< weight of an accepted report, (0, 1e6] (default 10) */
  uint32_t agents;      /**< n, in the acceptance radius ln(n t) (default 1) */
  uint32_t max_peers;   /**< senders tracked, 1..P2B_CMAB_MAX_PEERS (default 1) */
  uint32_t rng_mode;    /**< ::p2b_rng_mode (default P2B_RNG_SYSTEM) */
  uint64_t seed;        /**< used when rng_mode == P2B_RNG_SEEDED */
  p2b_random_fn random; /**< optional: replaces the platform CSPRNG */
  void* random_ctx;     /**< passed to `random` */
} p2b_cmab_config;

/** \brief A P-FCB agent; opaque, it lives inside your arena. */
typedef struct p2b_cmab p2b_cmab;

/**
 * \brief What an agent has spent, from its release count. Gaussian releases
 * are accounted exactly through Gaussian DP (mu composes as a root sum of
 * squares); eps figures are stated at delta_target.
 */
typedef struct p2b_cmab_privacy {
  uint32_t releases;         /**< shares drawn so far */
  double paper_epsilon;      /**< the paper's claim: sum of eps_z */
  double paper_delta;        /**< the paper's claim: delta */
  double basic_epsilon;      /**< basic composition over both noisy values: 2 sum eps_z */
  double basic_delta;        /**< 2 * releases * delta */
  double element_epsilon;    /**< one procurement element, worst release (exact) */
  double sequential_epsilon; /**< one element charged every release (exact) */
  double vector_epsilon;     /**< one round's whole procurement vector (exact) */
  double delta_target;       /**< the delta of the three exact figures */
  /** mu (Gaussian DP) of the worst single release: element_epsilon's source */
  double element_mu;
  /** root sum of squares of every release's mu: sequential_epsilon's source */
  double sequential_mu;
  /** element_mu * sqrt(m): vector_epsilon's source */
  double vector_mu;
} p2b_cmab_privacy;

/**
 * \brief Fills a configuration with the defaults noted in ::p2b_cmab_config.
 * producers, cost and capacity are left empty and must be set.
 * \param cfg The configuration to fill.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER `cfg` is NULL.
 */
P2B_NODISCARD P2B_API p2b_status p2b_cmab_config_default(p2b_cmab_config* cfg);

/**
 * \brief Exact arena size in bytes for this configuration.
 * \param cfg The configuration.
 * \param bytes Receives the size.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER `cfg`, `bytes`, `cost` or `capacity` is NULL.
 * \retval P2B_ERR_BAD_CONFIG A field is out of range, or no random source exists.
 */
P2B_NODISCARD P2B_API p2b_status p2b_cmab_footprint(const p2b_cmab_config* cfg, size_t* bytes);

/**
 * \brief Sets up an agent in caller memory.
 * \param mem #P2B_ARENA_ALIGN-aligned memory of at least the footprint.
 * \param len Its size.
 * \param cfg The configuration.
 * \param agent Receives the handle, which points into `mem`.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_BAD_CONFIG A field is out of range.
 * \retval P2B_ERR_ARENA_MISALIGNED `mem` is not aligned.
 * \retval P2B_ERR_ARENA_TOO_SMALL `len` is below the footprint.
 */
P2B_NODISCARD P2B_API p2b_status p2b_cmab_init(void* mem, size_t len, const p2b_cmab_config* cfg,
                                               p2b_cmab** agent);

/**
 * \brief The units to procure this round; call p2b_cmab_observe() next.
 * \param agent The agent.
 * \param units Receives m unit counts, each <= its capacity.
 * \param m The number of producers.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_cmab_init().
 * \retval P2B_ERR_DIMENSION_MISMATCH `m` is not the configured count.
 */
P2B_NODISCARD P2B_API p2b_status p2b_cmab_decide(p2b_cmab* agent, uint32_t* units, size_t m);

/**
 * \brief Ends the round with the good units among those procured; at a
 * release round it also draws the share p2b_cmab_poll_share() hands out.
 * \param agent The agent.
 * \param good m counts, each at most the units decided.
 * \param m The number of producers.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_cmab_init().
 * \retval P2B_ERR_DIMENSION_MISMATCH `m` is not the configured count.
 * \retval P2B_ERR_UNKNOWN_DECISION No decision awaits an observation.
 * \retval P2B_ERR_REWARD_OUT_OF_RANGE A count is above the units decided.
 * \retval P2B_ERR_RANDOM_FAILURE The random source failed while drawing noise.
 */
P2B_NODISCARD P2B_API p2b_status p2b_cmab_observe(p2b_cmab* agent, const uint32_t* good, size_t m);

/**
 * \brief Bytes of one encoded share for m producers (0 when m is out of range).
 * The length is fixed per m, so it reveals nothing else.
 * \param producers m.
 * \return The size.
 */
P2B_API size_t p2b_cmab_share_size(uint32_t producers);

/**
 * \brief Hands out the share drawn at the last release round, once.
 * \param agent The agent.
 * \param buf Receives the encoded share.
 * \param cap Its capacity, at least p2b_cmab_share_size().
 * \param written Receives the share's length.
 * \retval P2B_OK A share was written.
 * \retval P2B_NO_REPORT No share waits.
 * \retval P2B_BUDGET_EXHAUSTED None waits and the budget stopped releases.
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_cmab_init().
 * \retval P2B_ERR_BUFFER_TOO_SMALL `cap` is too small; the share keeps waiting.
 */
P2B_NODISCARD P2B_API p2b_status p2b_cmab_poll_share(p2b_cmab* agent, void* buf, size_t cap,
                                                     size_t* written);

/**
 * \brief Learns from a peer's share by the paper's selective acceptance:
 * producer i's report is added (times omega2) when its ratio y/w lies within
 * omega1 * sqrt(3 ln(n t) / 2W) of the own estimate. Verify the sender
 * first (the relay's posting is signed): this call trusts who sent it, never
 * what it says.
 * \param agent The agent.
 * \param sender The sender's index, below max_peers.
 * \param buf The encoded share.
 * \param len Its length.
 * \param accepted Optional: receives the producers whose reports were added.
 * \param rejected Optional: receives the others.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER `agent` or `buf` is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_cmab_init().
 * \retval P2B_ERR_MALFORMED_INPUT Not a well-formed share.
 * \retval P2B_ERR_DIMENSION_MISMATCH A share of another m.
 * \retval P2B_ERR_ACTION_OUT_OF_RANGE `sender` is not below max_peers.
 * \retval P2B_ERR_REPLAYED Its release number is not above the last applied from `sender`.
 */
P2B_NODISCARD P2B_API p2b_status p2b_cmab_apply_share(p2b_cmab* agent, uint32_t sender,
                                                      const void* buf, size_t len,
                                                      uint32_t* accepted, uint32_t* rejected);

/**
 * \brief What the agent has spent so far.
 * \param agent The agent.
 * \param out Receives the figures.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_cmab_init().
 */
P2B_NODISCARD P2B_API p2b_status p2b_cmab_privacy_spent(const p2b_cmab* agent,
                                                        p2b_cmab_privacy* out);

/**
 * \brief Size of the agent's saved state: 296 + 56 m + 4 P bytes for m
 * producers and P = max_peers (docs/formats.md), whatever it has learned.
 * \param agent The agent.
 * \param bytes Receives the size.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_cmab_init().
 */
P2B_NODISCARD P2B_API p2b_status p2b_cmab_save_size(const p2b_cmab* agent, size_t* bytes);

/**
 * \brief Writes everything the agent learned and spent (counts, unreleased
 * increments, releases, the waiting share, each sender's last release, the
 * random stream) under a keyed BLAKE2b MAC of the app's
 * #P2B_STATE_KEY_BYTES-byte state key. Restoring it after a restart keeps
 * the accountant's figures and the replay checks: a fresh agent would
 * spend the budget again. The bytes are not encrypted; they hold the
 * procurement history, so store them as the app stores its secrets.
 * \param agent The agent.
 * \param key The app's #P2B_STATE_KEY_BYTES-byte state key.
 * \param buf Receives the state.
 * \param cap Its capacity.
 * \param written Receives the number of bytes written.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_cmab_init().
 * \retval P2B_ERR_BUFFER_TOO_SMALL `cap` is below p2b_cmab_save_size().
 */
P2B_NODISCARD P2B_API p2b_status p2b_cmab_save(const p2b_cmab* agent, const uint8_t* key, void* buf,
                                               size_t cap, size_t* written);

/**
 * \brief Restores a saved state into an agent set up with the saved one's
 * configuration (costs and capacities included); all or nothing.
 * \param agent The agent.
 * \param key The state key it was saved under.
 * \param buf The saved state.
 * \param len Its length.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER A pointer is NULL.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_cmab_init().
 * \retval P2B_ERR_CORRUPT_STATE Another key, any edit, or impossible values.
 * \retval P2B_ERR_UNSUPPORTED_VERSION A format this library does not read.
 * \retval P2B_ERR_STATE_MISMATCH A state of another configuration.
 */
P2B_NODISCARD P2B_API p2b_status p2b_cmab_restore(p2b_cmab* agent, const uint8_t* key,
                                                  const void* buf, size_t len);

/**
 * \brief The agent's estimates: units seen (own plus accepted) and quality.
 * \param agent The agent.
 * \param units_seen Optional: receives m values.
 * \param quality Optional: receives m values (0 for a producer never seen).
 * \param m The number of producers.
 * \retval P2B_OK
 * \retval P2B_ERR_NULL_POINTER `agent` is NULL, or both outputs are.
 * \retval P2B_ERR_NOT_INITIALIZED `agent` was not set up by p2b_cmab_init().
 * \retval P2B_ERR_DIMENSION_MISMATCH `m` is not the configured count.
 */
P2B_NODISCARD P2B_API p2b_status p2b_cmab_estimates(const p2b_cmab* agent, double* units_seen,
                                                    double* quality, size_t m);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* P2B_H */
