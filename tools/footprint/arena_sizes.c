/* Prints the agent arena (p2b_agent_footprint) for a few shapes, one line per
 * shape: "d K k bytes". The arena is all the RAM an agent holds; the scalar
 * (float or double) is that of the libp2b this is linked against. Built and
 * run by scripts/footprint.sh with the other defaults of p2b_config_default. */
#include <stdio.h>
#include <stdlib.h>

#include "p2b.h"

struct shape {
  uint32_t dim, n_actions, n_codes;
};

static const struct shape kShapes[] = {
    {5, 4, 64}, {10, 10, 1024}, {20, 50, 1024}, {32, 100, 4096}, {64, 10, 1024},
};

int main(void) {
  static const uint8_t key[P2B_KEY_BYTES] = {1};
  size_t i;
  for (i = 0; i < sizeof kShapes / sizeof kShapes[0]; ++i) {
    const struct shape* s = &kShapes[i];
    /* Footprint only checks the codebook pointer; zeroes keep it valid. */
    float* codebook = calloc((size_t)s->n_codes * s->dim, sizeof *codebook);
    p2b_config cfg;
    size_t bytes = 0;
    p2b_status st;
    if (codebook == NULL) return 1;
    if (p2b_config_default(&cfg) != P2B_OK) return 1;
    cfg.dim = s->dim;
    cfg.n_actions = s->n_actions;
    cfg.n_codes = s->n_codes;
    cfg.centroids = codebook;
    cfg.shuffler_public_key = cfg.analyzer_public_key = cfg.analyzer_verify_key = key;
    st = p2b_agent_footprint(&cfg, &bytes);
    free(codebook);
    if (st != P2B_OK) {
      fprintf(stderr, "footprint d=%u K=%u k=%u: %s\n", (unsigned)s->dim, (unsigned)s->n_actions,
              (unsigned)s->n_codes, p2b_status_str(st));
      return 1;
    }
    printf("%u %u %u %zu\n", (unsigned)s->dim, (unsigned)s->n_actions, (unsigned)s->n_codes, bytes);
  }
  return 0;
}
