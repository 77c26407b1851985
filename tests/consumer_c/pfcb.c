/* Consumer check from C: a P-FCB agent in caller memory, through its own
 * header p2b_pfcb.h and nothing else of the API, so the split headers are
 * installed and usable alone. Seeded, so every build prints the same line;
 * exits nonzero on any failure (scripts/consumer-test.sh). */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <stdio.h>
#include <stdlib.h>

#include "p2b_pfcb.h"

#define PRODUCERS 2
#define ROUNDS 50

static int check(const char* what, p2b_status s) {
  if (p2b_is_error(s))
    fprintf(stderr, "consumer(c, p2b_pfcb.h): %s: %s\n", what, p2b_status_str(s));
  return p2b_is_error(s);
}

int main(void) {
  static const double kCost[PRODUCERS] = {0.2, 0.5};
  static const uint32_t kCapacity[PRODUCERS] = {3, 3};
  p2b_cmab_config cfg;
  p2b_cmab* agent = NULL;
  size_t bytes = 0;
  void* arena = NULL;
  unsigned long procured = 0;
  int round, i;

  if (check("config_default", p2b_cmab_config_default(&cfg))) return 1;
  cfg.producers = PRODUCERS;
  cfg.cost = kCost;
  cfg.capacity = kCapacity;
  cfg.rng_mode = P2B_RNG_SEEDED;
  cfg.seed = 7;
  if (check("footprint", p2b_cmab_footprint(&cfg, &bytes))) return 1;
  if (posix_memalign(&arena, P2B_ARENA_ALIGN, bytes) != 0) return 1;
  if (check("init", p2b_cmab_init(arena, bytes, &cfg, &agent))) return 1;

  for (round = 0; round < ROUNDS; ++round) {
    uint32_t units[PRODUCERS], good[PRODUCERS];
    if (check("decide", p2b_cmab_decide(agent, units, PRODUCERS))) return 1;
    for (i = 0; i < PRODUCERS; ++i) {
      good[i] = units[i]; /* every unit good: the qualities learn towards 1 */
      procured += units[i];
    }
    if (check("observe", p2b_cmab_observe(agent, good, PRODUCERS))) return 1;
  }
  printf("consumer(c, p2b_pfcb.h): p2b %s, %zu-byte arena, %lu units in %d rounds\n",
         p2b_version_string(), bytes, procured, ROUNDS);
  free(arena);
  return procured > 0 ? 0 : 1;
}
