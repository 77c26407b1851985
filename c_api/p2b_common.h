/**
 * \file p2b_common.h
 * \brief What every part of the C API shares: statuses, sizes and compiled
 *        limits, the linked library's version, and the policy, randomness
 *        and crypto types the three protocols' configurations use.
 *
 * Included by p2b_agent.h, p2b_shared_model.h and p2b_pfcb.h; p2b.h includes
 * them all and holds the version macros.
 */
#ifndef P2B_COMMON_H
#define P2B_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "p2b_build_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \defgroup common Common: statuses, sizes, version
 * \brief What the agent, the shared model and P-FCB share: the status every
 * fallible function returns, the sizes and compiled limits, the library's
 * version, and the policy, randomness and crypto types of their
 * configurations.
 * @{
 */

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

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* P2B_COMMON_H */
