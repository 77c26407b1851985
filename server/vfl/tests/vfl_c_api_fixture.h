/* The C test's counterparts, written in C++: the PMG that seals a party's
 * mask bundle, and the active party that opens the party's messages. */
#ifndef VFL_C_API_FIXTURE_H
#define VFL_C_API_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* d = 5 split {2, 3}: the party under test is index 1, with d_j = 3. */
typedef struct vfl_fixture {
  uint8_t party_pk[32];
  uint8_t party_sk[32];
  uint8_t pmg_pk[32];
  uint8_t ap_pk[32];
  uint8_t ap_sk[32];
  uint8_t bundle[1024];
  size_t bundle_len;
  double q_block[5 * 3]; /* Q^1, column-major */
} vfl_fixture;

/* 0 on success. */
int vfl_fixture_make(vfl_fixture* f);

/* Opens a P2BV message of `k` items as the active party would (round above
 * `last_round`); 0 on success, with the k x 5 values in `values`. */
int vfl_fixture_open(const vfl_fixture* f, const uint8_t* msg, size_t len, uint32_t k,
                     uint64_t last_round, double* values);

#ifdef __cplusplus
}
#endif

#endif
