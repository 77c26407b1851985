/* The server side of the wire formats, redone on the device for the test
 * image: opening a sealed report and building a signed model bundle. */
#ifndef P2B_CORTEX_M_TEST_WIRE_H
#define P2B_CORTEX_M_TEST_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "p2b.h"

/* Test deployment keys, derived from fixed seeds with libsodium's
 * seed_keypair functions. Public knowledge: test use only. */
typedef struct test_keys {
  uint8_t shuffler_pk[32], shuffler_sk[32];
  uint8_t analyzer_pk[32], analyzer_sk[32];
  uint8_t verify_pk[32], sign_sk[64];
} test_keys;

int derive_test_keys(test_keys* keys);

/* Opens both layers of a P2B_ENVELOPE_BYTES envelope as the shuffler and the
 * analyzer would; 0 on success with the tuple in `out`. */
int open_envelope(const test_keys* keys, const uint8_t* envelope, p2b_tuple* out);

typedef struct model_source {
  uint32_t dim, n_actions;
  const double* a; /* n_actions column-major dim x dim matrices */
  const double* b; /* n_actions vectors of dim */
  const uint8_t* codebook_fp;
  uint64_t version;
  uint32_t kind; /* 0 private, 1 raw baseline */
} model_source;

/* "P2BM" | header | columns | Ed25519 signature, as server/wire/model_bundle
 * writes it. Returns the bundle length, or 0 if `cap` is too small. */
size_t build_model_bundle(const test_keys* keys, const model_source* m, uint8_t* out, size_t cap);

#endif /* P2B_CORTEX_M_TEST_WIRE_H */
