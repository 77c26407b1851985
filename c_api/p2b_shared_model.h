/**
 * \file p2b_shared_model.h
 * \brief The shared-parameter model: one ridge model over per-item contexts,
 *        for vertical federation (O3M).
 */
#ifndef P2B_SHARED_MODEL_H
#define P2B_SHARED_MODEL_H

#include "p2b_common.h"

#ifdef __cplusplus
extern "C" {
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

#ifdef __cplusplus
}
#endif

#endif /* P2B_SHARED_MODEL_H */
