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
 * \par Headers
 * This header includes all of the C API; an app may include only the part it
 * uses instead, each of which compiles alone from C99 and C++:
 * - p2b_common.h (\ref common): statuses, sizes and compiled limits, the
 *   library's version and what the three protocols' configurations share;
 * - p2b_agent.h (\ref agent): the P2B agent described above;
 * - p2b_shared_model.h (\ref shared_model): the shared-parameter model (O3M);
 * - p2b_pfcb.h (\ref cmab): the P-FCB procurement agent.
 *
 * \par Versioning
 * #P2B_VERSION_MAJOR, #P2B_VERSION_MINOR and #P2B_VERSION_PATCH are the only
 * copy of the version; the build reads them from this header, which is why
 * they stay here rather than in p2b_common.h. Within a major
 * version, existing functions, structure layouts and status values do not
 * change. Names marked deprecated keep working until 1.0; define
 * P2B_NO_DEPRECATED to hide them.
 */
#ifndef P2B_H
#define P2B_H

/* ---- version -------------------------------------------------------- */

/** \brief Major version: incompatible API or ABI changes. */
#define P2B_VERSION_MAJOR 0
/** \brief Minor version: additions that keep the API and ABI. */
#define P2B_VERSION_MINOR 2
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

#include "p2b_agent.h"
#include "p2b_common.h"
#include "p2b_pfcb.h"
#include "p2b_shared_model.h"

#endif /* P2B_H */
