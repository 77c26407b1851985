/**
 * \file p2b_pfcb.h
 * \brief P-FCB: federated procurement under a quality constraint, with
 *        differentially private sharing between competing agents.
 */
#ifndef P2B_PFCB_H
#define P2B_PFCB_H

#include "p2b_common.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#endif /* P2B_PFCB_H */
