/* The passive party's C API (server/vfl/p2b_vfl.h) from plain C99: open the
 * bundle the PMG sealed, mask features, seal them to the active party; and
 * every refusal with its own status. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "vfl/p2b_vfl.h"
#include "vfl_c_api_fixture.h"

static int failures = 0;
#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

int main(void) {
  static vfl_fixture f;
  p2b_vfl_party* party = NULL;
  p2b_vfl_party* other = NULL;
  uint8_t bad[1024];
  uint8_t mask_id[P2B_VFL_MASK_ID_BYTES];
  uint8_t token[P2B_VFL_TOKEN_BYTES] = {7, 7};
  uint8_t msg[512];
  uint32_t d = 0, d_j = 0, i, r, c;
  uint64_t epoch = 0;
  size_t written = 0;
  /* Two items of the party's three features. */
  double x[2 * 3] = {0.1, -0.4, 0.25, 1.0, 0.0, -2.0};
  double out[2 * 5], opened[2 * 5];
  int s;

  CHECK(vfl_fixture_make(&f) == 0);
  CHECK(p2b_vfl_party_open(f.bundle, f.bundle_len, f.party_pk, f.party_sk, f.pmg_pk, 1, 5, 0,
                           &party) == P2B_VFL_OK);
  CHECK(party != NULL);
  CHECK(p2b_vfl_party_info(party, &d, &d_j, &epoch, mask_id) == P2B_VFL_OK);
  CHECK(d == 5 && d_j == 3 && epoch == 1);

  /* Refusals, each distinct, and no handle on failure. */
  CHECK(p2b_vfl_party_open(f.bundle, f.bundle_len, f.party_pk, f.party_sk, f.pmg_pk, 0, 5, 0,
                           &other) == P2B_VFL_ERR_WRONG_PARTY);
  CHECK(p2b_vfl_party_open(f.bundle, f.bundle_len, f.party_pk, f.party_sk, f.pmg_pk, 1, 6, 0,
                           &other) == P2B_VFL_ERR_WRONG_DIMENSION);
  CHECK(p2b_vfl_party_open(f.bundle, f.bundle_len, f.party_pk, f.party_sk, f.pmg_pk, 1, 5, 1,
                           &other) == P2B_VFL_ERR_ROLLBACK);
  CHECK(p2b_vfl_party_open(f.bundle, f.bundle_len, f.party_pk, f.party_sk, f.ap_pk, 1, 5, 0,
                           &other) == P2B_VFL_ERR_UNTRUSTED_SIGNER);
  memcpy(bad, f.bundle, f.bundle_len);
  bad[f.bundle_len / 2] ^= 1;
  CHECK(p2b_vfl_party_open(bad, f.bundle_len, f.party_pk, f.party_sk, f.pmg_pk, 1, 5, 0, &other) ==
        P2B_VFL_ERR_NOT_OPENABLE);
  CHECK(p2b_vfl_party_open(NULL, 0, f.party_pk, f.party_sk, f.pmg_pk, 1, 5, 0, &other) ==
        P2B_VFL_ERR_NULL_POINTER);
  CHECK(other == NULL);

  /* Masking is Q^1 x^1, row by row. */
  CHECK(p2b_vfl_party_mask(party, x, 2, out, 10) == P2B_VFL_OK);
  for (i = 0; i < 2; ++i) {
    for (r = 0; r < 5; ++r) {
      double want = 0.0;
      for (c = 0; c < 3; ++c) want += f.q_block[c * 5 + r] * x[i * 3 + c];
      CHECK(fabs(out[i * 5 + r] - want) <= 1e-12);
    }
  }
  CHECK(p2b_vfl_party_mask(party, x, 2, out, 9) == P2B_VFL_ERR_SHAPE);
  CHECK(p2b_vfl_party_mask(party, x, 0, out, 0) == P2B_VFL_ERR_SHAPE);
  x[4] = NAN;
  CHECK(p2b_vfl_party_mask(party, x, 2, out, 10) == P2B_VFL_ERR_NON_FINITE);
  x[4] = 0.0;

  /* Sealed to the active party, it opens to the same values. */
  CHECK(p2b_vfl_message_bytes(2, 5) == 100 + 8 * 2 * 5);
  CHECK(p2b_vfl_party_seal(party, f.ap_pk, 1, token, x, 2, msg, sizeof msg, &written) ==
        P2B_VFL_OK);
  CHECK(written == p2b_vfl_message_bytes(2, 5));
  CHECK(vfl_fixture_open(&f, msg, written, 2, 0, opened) == 0);
  CHECK(memcmp(opened, out, sizeof out) == 0);
  CHECK(vfl_fixture_open(&f, msg, written, 2, 1, opened) != 0); /* a replay of round 1 */
  CHECK(p2b_vfl_party_seal(party, f.ap_pk, 0, token, x, 2, msg, sizeof msg, &written) ==
        P2B_VFL_ERR_ROUND);
  CHECK(p2b_vfl_party_seal(party, f.ap_pk, 2, token, x, 2, msg, 179, &written) ==
        P2B_VFL_ERR_SHAPE);

  /* Every status has its own description. */
  for (s = P2B_VFL_ERR_OUT_OF_MEMORY; s <= P2B_VFL_OK; ++s) {
    int t;
    for (t = s + 1; t <= P2B_VFL_OK; ++t) {
      CHECK(strcmp(p2b_vfl_status_str((p2b_vfl_status)s), p2b_vfl_status_str((p2b_vfl_status)t)) !=
            0);
    }
  }
  CHECK(strcmp(p2b_vfl_status_str((p2b_vfl_status)-99), "unknown status") == 0);

  p2b_vfl_party_free(party);
  p2b_vfl_party_free(NULL);
  if (failures == 0) printf("vfl_c_api_test: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
