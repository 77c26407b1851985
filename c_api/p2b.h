/*
 * p2b.h - the stable C API of p2b, privacy-preserving on-device bandits.
 *
 * p2b runs a contextual bandit (LinUCB or linear Thompson sampling) on the
 * device, learns from this user's feedback only, and now and then releases
 * one (code, action, reward) tuple under the P2B protocol (Malekzadeh et al.,
 * MLSys 2020): contexts are encoded to a k-means code, and participation is
 * randomised with probability p, which bounds the differential-privacy cost
 * of each report.
 *
 * How to use it, in ten lines:
 *
 *     p2b_config cfg;
 *     p2b_config_default(&cfg);           // then set dim, n_actions, codebook
 *     size_t need;
 *     p2b_agent_footprint(&cfg, &need);   // exact bytes for this config
 *     void *mem = aligned_alloc(P2B_ARENA_ALIGN, round_up(need));  // your memory
 *     p2b_agent *agent;
 *     p2b_agent_init(mem, need, &cfg, &agent);
 *     p2b_agent_decide(agent, x, dim, &action, &id);   // show `action`
 *     p2b_agent_reward(agent, id, 1.0f);                // later, any order
 *     while (p2b_agent_poll_report(agent, &rep) == P2B_OK) send(&rep);
 *
 * Memory and ownership
 *   - The library never allocates. All agent state lives in the arena you
 *     pass to p2b_agent_init, sized by p2b_agent_footprint and aligned to
 *     P2B_ARENA_ALIGN. You own the arena; to destroy an agent, free it. There
 *     is no global state: any number of agents may coexist.
 *   - The handle is a pointer into the arena. Do not copy the arena to move an
 *     agent; use p2b_agent_save / p2b_agent_restore.
 *   - Every pointer argument is borrowed for the duration of the call only;
 *     the codebook, for one, is copied into the arena at init.
 *   - Array arguments always come with their length (or capacity), in
 *     elements. A length that does not match the agent gives
 *     P2B_ERR_DIMENSION_MISMATCH; a capacity too small gives
 *     P2B_ERR_BUFFER_TOO_SMALL.
 *
 * Errors
 *   - Every function returns a p2b_status. Zero is success, positive values
 *     are informational (P2B_NO_REPORT, P2B_BUDGET_EXHAUSTED), negative values
 *     are errors; p2b_is_error() tells them apart and p2b_status_str() names
 *     them.
 *   - A call that returns an error leaves the agent exactly as it was.
 *
 * Threads
 *   - An agent is not thread-safe. Use one agent per thread, or serialise all
 *     calls on one agent with your own lock. Distinct agents are independent.
 *   - Functions that take no agent are thread-safe.
 *
 * Randomness
 *   - By default an agent draws from the platform CSPRNG (libsodium's
 *     randombytes on POSIX). For tests and simulation set
 *     cfg.rng_mode = P2B_RNG_SEEDED and cfg.seed: the same seed then gives the
 *     same decisions and reports on every platform.
 *
 * Version: see P2B_VERSION_* and p2b_version(). Within a major version,
 * existing functions, structure layouts and status values do not change.
 */
#ifndef P2B_H
#define P2B_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(P2B_SHARED_BUILD)
#define P2B_API __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define P2B_API __attribute__((visibility("default")))
#else
#define P2B_API
#endif

/* ---- version -------------------------------------------------------- */

#define P2B_VERSION_MAJOR 0
#define P2B_VERSION_MINOR 1
#define P2B_VERSION_PATCH 0
#define P2B_VERSION_NUMBER (P2B_VERSION_MAJOR * 10000 + P2B_VERSION_MINOR * 100 + P2B_VERSION_PATCH)
#define P2B_VERSION_STRING "0.1.0"

/* Runtime version of the linked library, as P2B_VERSION_NUMBER. */
P2B_API unsigned p2b_version(void);
/* Runtime version string, static. */
P2B_API const char* p2b_version_string(void);

/* ---- status --------------------------------------------------------- */

typedef enum p2b_status {
  P2B_OK = 0,
  P2B_NO_REPORT = 1,        /* poll: nothing to send right now */
  P2B_BUDGET_EXHAUSTED = 2, /* poll: privacy budget spent; no more reports ever */

  P2B_ERR_NULL_POINTER = -1,           /* a required pointer was NULL */
  P2B_ERR_BAD_CONFIG = -2,             /* a config field is out of range */
  P2B_ERR_DIMENSION_MISMATCH = -3,     /* array length != configured dim / n_actions */
  P2B_ERR_NON_FINITE = -4,             /* NaN or Inf in the input */
  P2B_ERR_NEGATIVE_CONTEXT = -5,       /* context entry < 0 */
  P2B_ERR_REWARD_OUT_OF_RANGE = -6,    /* reward outside [0, 1] */
  P2B_ERR_ACTION_OUT_OF_RANGE = -7,    /* action >= n_actions */
  P2B_ERR_BUFFER_TOO_SMALL = -8,       /* output capacity too small */
  P2B_ERR_NOT_INITIALIZED = -9,        /* handle not set up by p2b_agent_init */
  P2B_ERR_ARENA_TOO_SMALL = -10,       /* arena smaller than the footprint */
  P2B_ERR_ARENA_MISALIGNED = -11,      /* arena not P2B_ARENA_ALIGN-aligned */
  P2B_ERR_UNKNOWN_DECISION = -12,      /* id never issued by this agent */
  P2B_ERR_EXPIRED_DECISION = -13,      /* id fell out of the pending ring */
  P2B_ERR_ALREADY_REWARDED = -14,      /* id already rewarded */
  P2B_ERR_CORRUPT_STATE = -15,         /* saved state truncated or corrupted */
  P2B_ERR_UNSUPPORTED_VERSION = -16,   /* saved state from an unknown format */
  P2B_ERR_STATE_MISMATCH = -17,        /* saved state of another config/codebook */
  P2B_ERR_NOT_POSITIVE_DEFINITE = -18, /* imported matrix not SPD */
  P2B_ERR_BAD_CODEBOOK = -19,          /* codebook has non-finite values */
  P2B_ERR_RANDOM_FAILURE = -20,        /* the random source failed */
  P2B_ERR_CODE_OUT_OF_RANGE = -21,     /* code >= n_codes */
  P2B_ERR_CRYPTO_FAILURE = -22,        /* the crypto port failed */
  P2B_ERR_MALFORMED_INPUT = -23,       /* not a well-formed p2b message or file */
  P2B_ERR_BAD_SIGNATURE = -24,         /* model signature fails the pinned key */
  P2B_ERR_MODEL_SHAPE_MISMATCH = -25,  /* model's dim or n_actions differ */
  P2B_ERR_CODEBOOK_MISMATCH = -26,     /* model built for another codebook */
  P2B_ERR_MODEL_ROLLBACK = -27,        /* model version <= the applied one */
  P2B_ERR_NUMERIC_RANGE = -28          /* update would leave the savable range */
} p2b_status;

/* Static English description of `s`; never NULL, also for unknown values. */
P2B_API const char* p2b_status_str(p2b_status s);
/* 1 if `s` is an error (negative), else 0. */
P2B_API int p2b_is_error(p2b_status s);

/* ---- configuration -------------------------------------------------- */

/* Arena alignment in bytes, also as a function for bindings. */
#define P2B_ARENA_ALIGN 16
P2B_API size_t p2b_arena_align(void);

/* Compiled maxima (as functions too, for bindings). */
#define P2B_MAX_DIM 64
#define P2B_MAX_ACTIONS 1024
#define P2B_MAX_CODES 65536
P2B_API uint32_t p2b_max_dim(void);
P2B_API uint32_t p2b_max_actions(void);

typedef enum p2b_policy { P2B_POLICY_LINUCB = 0, P2B_POLICY_LINTS = 1 } p2b_policy;
typedef enum p2b_rng_mode { P2B_RNG_SYSTEM = 0, P2B_RNG_SEEDED = 1 } p2b_rng_mode;

/* Key and envelope sizes, in bytes. */
#define P2B_KEY_BYTES 32         /* X25519 box and Ed25519 verify public keys */
#define P2B_FINGERPRINT_BYTES 16 /* BLAKE2b-128 of a public key */
#define P2B_ENVELOPE_BYTES 208   /* every sealed report, whatever it holds */

/* Crypto primitives, for platforms without libsodium (P2B_PORT=none). Each
   returns 0 on success. seal: crypto_box_seal semantics, writing len + 48
   bytes; hash: unkeyed BLAKE2b of out_len bytes; verify: Ed25519 detached;
   aead_*: XChaCha20-Poly1305-IETF (24-byte nonce, 16-byte tag, in place
   allowed); random: fresh bytes for nonces. All are required. */
typedef struct p2b_crypto {
  int (*seal)(uint8_t* out, const uint8_t* msg, size_t len, const uint8_t* recipient_pk);
  int (*hash)(uint8_t* out, size_t out_len, const uint8_t* msg, size_t len);
  int (*verify)(const uint8_t* sig, const uint8_t* msg, size_t len, const uint8_t* signer_pk);
  int (*aead_encrypt)(uint8_t* out, const uint8_t* msg, size_t len, const uint8_t* ad,
                      size_t ad_len, const uint8_t* nonce, const uint8_t* key);
  int (*aead_decrypt)(uint8_t* out, const uint8_t* box, size_t len, const uint8_t* ad,
                      size_t ad_len, const uint8_t* nonce, const uint8_t* key);
  int (*random)(uint8_t* out, size_t len);
} p2b_crypto;

/* A random source: fill `len` bytes at `out`, return 0 on success. */
typedef int (*p2b_random_fn)(void* ctx, uint8_t* out, size_t len);

typedef struct p2b_config {
  uint32_t dim;        /* d, context length, 1..P2B_MAX_DIM */
  uint32_t n_actions;  /* K, 1..P2B_MAX_ACTIONS */
  uint32_t policy;     /* p2b_policy */
  double alpha;        /* LinUCB exploration weight, >= 0 (default 1) */
  double ridge_lambda; /* A_a starts at lambda*I, in [1e-6, 1e6] (default 1) */
  double ts_scale;     /* LinTS: mu ~ N(theta, v^2 A^-1), v >= 0 (default 0.1) */

  uint32_t round_digits; /* q, decimal digits kept when encoding, 1..6 (default 1) */
  uint32_t window;       /* t, interactions per participation decision (default 10) */
  double participation;  /* p, in (0, 1) (default 0.5) */
  double neg_rate;       /* chance a report is a zero-reward tuple, [0, 1] (default 0.05) */
  double epsilon_budget; /* total epsilon this agent may spend, > 0; INFINITY = unlimited */

  uint32_t pending_capacity; /* decisions awaiting reward; oldest overwritten (default 16) */
  uint32_t outbox_capacity;  /* reports awaiting poll; extras are dropped unsent (default 4) */

  const float* centroids; /* codebook, n_codes x dim, row-major; copied at init */
  uint32_t n_codes;       /* k, 1..P2B_MAX_CODES */

  uint32_t rng_mode;    /* p2b_rng_mode (default P2B_RNG_SYSTEM) */
  uint64_t seed;        /* used when rng_mode == P2B_RNG_SEEDED */
  p2b_random_fn random; /* optional: replaces the platform CSPRNG */
  void* random_ctx;     /* passed to `random` */

  /* Deployment keys, P2B_KEY_BYTES each, copied at init (files from p2b-keygen). */
  const uint8_t* shuffler_public_key; /* X25519: outer layer of every report */
  const uint8_t* analyzer_public_key; /* X25519: inner layer of every report */
  const uint8_t* analyzer_verify_key; /* Ed25519: warm-start models must verify */
  const p2b_crypto* crypto;           /* optional: replaces the platform crypto */
} p2b_config;

/* Fills `cfg` with the defaults noted above; dim, n_actions, centroids and
   n_codes are left zero and must be set. */
P2B_API p2b_status p2b_config_default(p2b_config* cfg);

/* ---- agent life cycle ----------------------------------------------- */

typedef struct p2b_agent p2b_agent; /* opaque; lives inside your arena */

/* Exact arena size in bytes for `cfg` (validates `cfg`). */
P2B_API p2b_status p2b_agent_footprint(const p2b_config* cfg, size_t* bytes);

/* Sets up an agent in `mem` (`len` bytes, aligned to P2B_ARENA_ALIGN) and
   returns its handle in `*agent`. On error `*agent` is untouched. */
P2B_API p2b_status p2b_agent_init(void* mem, size_t len, const p2b_config* cfg, p2b_agent** agent);

/* ---- decisions ------------------------------------------------------ */

/* Chooses an action for context `x` (`len` == dim non-negative finite
   floats; scale does not matter, the agent normalises to sum 1). Returns the
   action and a decision id to reward later. Cost: O(K d^2). */
P2B_API p2b_status p2b_agent_decide(p2b_agent* agent, const float* x, size_t len, uint32_t* action,
                                    uint64_t* decision_id);

/* Rewards an earlier decision with `reward` in [0, 1]. Rewards may come in
   any order while the decision is among the last pending_capacity ones.
   P2B_ERR_NUMERIC_RANGE (also from p2b_agent_learn) means the update would
   push the statistics out of the range a saved state may hold; it is refused
   and nothing changes. Honest statistics never get near it. */
P2B_API p2b_status p2b_agent_reward(p2b_agent* agent, uint64_t decision_id, float reward);

/* Learns from a logged (x, action, reward) without making a decision. Such
   interactions are never reported. */
P2B_API p2b_status p2b_agent_learn(p2b_agent* agent, const float* x, size_t len, uint32_t action,
                                   float reward);

/* Erases what the agent has learned about its user: every arm back to the
   prior lambda*I, pending decisions (their ids become P2B_ERR_EXPIRED_DECISION), the
   open window and any unsent reports. Keeps the configuration, keys,
   codebook, the random stream, the privacy ledger (epsilon spent stays
   spent) and the model-version floor of p2b_agent_apply_model. Use it when a
   user asks to erase their personalisation. No hashing or copying of the
   codebook, so it is far cheaper than a fresh p2b_agent_init (simulators
   call it once per simulated user). */
P2B_API p2b_status p2b_agent_forget(p2b_agent* agent);

/* Per-action estimate theta_a.x into `mean` and confidence width
   sqrt(x^T A_a^-1 x) into `width`; both of capacity `cap` >= n_actions.
   The LinUCB score is mean + alpha * width. */
P2B_API p2b_status p2b_agent_scores(p2b_agent* agent, const float* x, size_t len, float* mean,
                                    float* width, size_t cap);

/* ---- reports -------------------------------------------------------- */

typedef struct p2b_report {
  uint32_t code;   /* k-means code of the context */
  uint32_t action; /* action taken */
  float reward;    /* reward observed */
} p2b_report;

/* Takes the next report to send, sealed for the shuffler: P2B_OK with exactly
   P2B_ENVELOPE_BYTES written to `envelope` (capacity `cap`), P2B_NO_REPORT,
   or P2B_BUDGET_EXHAUSTED once the epsilon budget is spent. Upload the bytes
   as they are; a report is dequeued only once sealed. */
P2B_API p2b_status p2b_agent_poll_report(p2b_agent* agent, uint8_t* envelope, size_t cap,
                                         size_t* written);

/* Same queue, in plaintext: for simulators and tests only. Never send it -
   it would bypass the shuffler's anonymity. */
P2B_API p2b_status p2b_agent_poll_tuple(p2b_agent* agent, p2b_report* report);

/* Bytes of one envelope under `cfg` (P2B_ENVELOPE_BYTES in this version). */
P2B_API p2b_status p2b_envelope_size(const p2b_config* cfg, size_t* bytes);

typedef struct p2b_fingerprints {
  uint8_t shuffler[P2B_FINGERPRINT_BYTES];
  uint8_t analyzer[P2B_FINGERPRINT_BYTES];
  uint8_t analyzer_verify[P2B_FINGERPRINT_BYTES];
  uint8_t codebook[P2B_FINGERPRINT_BYTES]; /* of the codebook, as in its file */
} p2b_fingerprints;

/* Fingerprints of the keys and the codebook the agent was set up with. */
P2B_API p2b_status p2b_agent_fingerprints(const p2b_agent* agent, p2b_fingerprints* out);
/* Fingerprint of any public key, with the platform crypto. */
P2B_API p2b_status p2b_key_fingerprint(const uint8_t* public_key,
                                       uint8_t fingerprint[P2B_FINGERPRINT_BYTES]);

typedef struct p2b_privacy {
  double epsilon_per_report; /* ln(p(2-p)/(1-p) + (1-p)) */
  double epsilon_spent;      /* reports * epsilon_per_report */
  double epsilon_budget;
  uint64_t reports;             /* tuples released so far */
  uint64_t windows_closed;      /* participation decisions made */
  uint64_t dropped_outbox_full; /* reports dropped (unsent, uncharged): outbox full */
  int exhausted;                /* 1 once no further report fits the budget */
} p2b_privacy;

P2B_API p2b_status p2b_agent_privacy(const p2b_agent* agent, p2b_privacy* out);

/* epsilon of one report for participation probability p in (0, 1). */
P2B_API p2b_status p2b_epsilon_per_report(double p, double* epsilon);

/* ---- encoder -------------------------------------------------------- */

/* The code the agent would report for context `x`. */
P2B_API p2b_status p2b_agent_encode(const p2b_agent* agent, const float* x, size_t len,
                                    uint32_t* code);
/* Centroid of `code` into `out` (`len` == dim). */
P2B_API p2b_status p2b_agent_centroid(const p2b_agent* agent, uint32_t code, float* out,
                                      size_t len);

/* ---- warm start ----------------------------------------------------- */

typedef enum p2b_stats_form {
  P2B_STATS_GRAM = 0,    /* A_a itself: symmetric positive definite */
  P2B_STATS_CHOLESKY = 1 /* lower L_a with A_a = L_a L_a^T; upper part must be finite, is ignored */
} p2b_stats_form;

/* Replaces every arm's statistics: `a` holds n_actions matrices of dim x dim
   (column-major, one after another), `b` n_actions vectors of dim. A_a must
   include the ridge prior (lambda I). All-or-nothing. Local learning goes on
   from the imported model. */
P2B_API p2b_status p2b_agent_import(p2b_agent* agent, const double* a, const double* b,
                                    uint32_t n_actions, uint32_t dim, uint32_t form);
/* Writes every arm's A_a (as P2B_STATS_GRAM) and b_a in the layout above. */
P2B_API p2b_status p2b_agent_export(const p2b_agent* agent, double* a, double* b,
                                    uint32_t n_actions, uint32_t dim);

/* Verifies and applies a signed warm-start model bundle, as the analyzer
   serves it: Ed25519 signature by the pinned analyzer_verify_key, the agent's
   dim and n_actions, its codebook's fingerprint, and a version newer than the
   last one applied. Every failure has its own status and changes nothing. */
P2B_API p2b_status p2b_agent_apply_model(p2b_agent* agent, const uint8_t* bundle, size_t len);
/* Version of the last model applied (0: none). Saved with the agent, so
   anti-rollback survives restarts. */
P2B_API p2b_status p2b_agent_model_version(const p2b_agent* agent, uint64_t* version);

/* ---- codebook files ------------------------------------------------- */

typedef struct p2b_codebook_info {
  uint32_t k;      /* codes */
  uint32_t dim;    /* d */
  uint32_t digits; /* q */
  uint8_t fingerprint[P2B_FINGERPRINT_BYTES];
} p2b_codebook_info;

/* Parses a codebook file (the format shared with the trainer and the
   analyzer) into `centroids` (capacity `cap` floats, k x dim row-major),
   checking every field and the fingerprint. Set cfg.centroids from it. On
   failure `centroids` may be partly written and must not be used. */
P2B_API p2b_status p2b_codebook_parse(const uint8_t* file, size_t len, float* centroids, size_t cap,
                                      p2b_codebook_info* info);

/* ---- persistence ---------------------------------------------------- */

/* Bytes p2b_agent_save writes: fixed for a given configuration. */
P2B_API p2b_status p2b_agent_save_size(const p2b_agent* agent, size_t* bytes);
/* Serialises the learned state: protobuf (proto/p2b_state.proto) with a
   BLAKE2b-256 integrity hash; includes the applied model version. */
P2B_API p2b_status p2b_agent_save(const p2b_agent* agent, void* buf, size_t cap, size_t* written);
/* Restores state saved by an agent with the same config and codebook into
   `agent` (already initialised). Truncated, corrupted or foreign state is
   rejected and the agent is unchanged. */
P2B_API p2b_status p2b_agent_restore(p2b_agent* agent, const void* buf, size_t len);

/* Encryption at rest: the saved state in an XChaCha20-Poly1305 box under a
   32-byte key the app provides (P2B_STATE_KEY_BYTES), with a fresh random
   nonce. Size: p2b_agent_save_size + P2B_STATE_ENCRYPTION_OVERHEAD. */
#define P2B_STATE_KEY_BYTES 32
#define P2B_STATE_ENCRYPTION_OVERHEAD 44
P2B_API p2b_status p2b_agent_save_encrypted(const p2b_agent* agent,
                                            const uint8_t key[P2B_STATE_KEY_BYTES], void* buf,
                                            size_t cap, size_t* written);
/* Decrypts `buf` IN PLACE (it is overwritten) and restores from it. A wrong
   key, tampering and corruption all give P2B_ERR_CORRUPT_STATE, and leave
   the agent unchanged. */
P2B_API p2b_status p2b_agent_restore_encrypted(p2b_agent* agent,
                                               const uint8_t key[P2B_STATE_KEY_BYTES], uint8_t* buf,
                                               size_t len);

#ifdef __cplusplus
}
#endif

#endif /* P2B_H */
