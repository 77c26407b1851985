/* The analyzer's side for c_api_test.c, which is strict C99 and has no
 * protobuf encoder or signing key: a deployment signing key, and warm-start
 * bundles for agents and shared models (server/wire/model_bundle.cpp builds
 * them) and shuffler-key lists signed with it. */
#ifndef P2B_C_API_TEST_SIGNER_H
#define P2B_C_API_TEST_SIGNER_H

#include "p2b.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The Ed25519 verify key devices pin; the same on every call. */
const uint8_t* c_test_verify_key(void);

/* Writes a bundle carrying identity statistics for an agent shaped like
 * `agent` (dim, n_actions and its codebook), of `kind`, `version` and
 * `not_after_unix` (0: none). Returns its size, or 0 when `cap` is short or
 * building fails. */
size_t c_test_bundle(const p2b_agent* agent, uint32_t dim, uint32_t n_actions, uint32_t kind,
                     uint64_t version, uint64_t not_after_unix, uint8_t* out, size_t cap);

/* Writes an FCLUB cluster's warm start for a shared model of `dim`: the
 * Gram matrix `gram` (dim x dim, column-major) and moment `moment` under the
 * prior `lambda`, of `version` and `not_after_unix` (0: none). Returns its
 * size, or 0 when `cap` is short or building fails. */
size_t c_test_shared_bundle(uint32_t dim, const double* gram, const double* moment, double lambda,
                            uint64_t version, uint64_t not_after_unix, uint8_t* out, size_t cap);

/* Writes a shuffler-key list (P2B_KEY_LIST_BYTES) signed with the key of
 * c_test_verify_key(): `current` is the key envelopes are sealed to,
 * `accepted` (or NULL) one more key still accepted. Returns its size, or 0
 * when `cap` is short or the list is not well-formed. */
size_t c_test_key_list(uint64_t version, const uint8_t* current, const uint8_t* accepted,
                       uint64_t not_after_unix, uint8_t* out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
