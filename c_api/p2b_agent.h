/**
 * \file p2b_agent.h
 * \brief The P2B agent: a contextual bandit on the device that releases
 *        sealed, randomised reports (the overview is in p2b.h).
 */
#ifndef P2B_AGENT_H
#define P2B_AGENT_H

#include "p2b_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \defgroup agent P2B agent
 * \brief LinUCB or linear Thompson sampling on the device over encoded
 * contexts, with participation randomised so that each sealed report has a
 * bounded privacy cost: configuration, life cycle, decisions, reports,
 * warm start, key lists, codebook files and persistence.
 * @{
 */

/* ---- configuration -------------------------------------------------- */

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

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* P2B_AGENT_H */
