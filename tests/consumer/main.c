/* Consumer check from C: an agent in caller memory, through p2b.h only.
 * Built four ways by scripts/consumer-test.sh (static and shared through
 * find_package, static and shared through pkg-config); exits nonzero on any
 * failure. */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <stdio.h>
#include <stdlib.h>

#include "p2b.h"

#define DIM 2
#define ACTIONS 3
#define STEPS 300

static const float kCodebook[2 * DIM] = {0.9f, 0.1f, 0.1f, 0.9f};
/* Any 32 bytes seal; a real app embeds the keys p2b-keygen writes. */
static const uint8_t kKey[P2B_KEY_BYTES] = {1, 2, 3, 4};

static int check(const char* what, p2b_status s) {
  if (p2b_is_error(s)) fprintf(stderr, "consumer(c): %s: %s\n", what, p2b_status_str(s));
  return p2b_is_error(s);
}

int main(void) {
  p2b_config cfg;
  p2b_agent* agent = NULL;
  size_t bytes = 0, written = 0;
  void* arena = NULL;
  uint8_t envelope[P2B_ENVELOPE_BYTES];
  int step, hits = 0, reports = 0;
  p2b_status s;

  if (check("config_default", p2b_config_default(&cfg))) return 1;
  cfg.dim = DIM;
  cfg.n_actions = ACTIONS;
  cfg.centroids = kCodebook;
  cfg.n_codes = 2;
  cfg.rng_mode = P2B_RNG_SEEDED; /* same run every time */
  cfg.seed = 42;
  cfg.shuffler_public_key = kKey;
  cfg.analyzer_public_key = kKey;
  cfg.analyzer_verify_key = kKey;

  if (check("footprint", p2b_agent_footprint(&cfg, &bytes))) return 1;
  if (posix_memalign(&arena, P2B_ARENA_ALIGN, bytes) != 0) return 1;
  if (check("init", p2b_agent_init(arena, bytes, &cfg, &agent))) return 1;

  for (step = 0; step < STEPS; ++step) {
    const float x[DIM] = {(float)(step % 2), (float)((step + 1) % 2)};
    uint32_t action = 0;
    uint64_t id = 0;
    int liked;
    if (check("decide", p2b_agent_decide(agent, x, DIM, &action, &id))) return 1;
    /* The user wants action 0 for the first context and 1 for the second. */
    liked = action == (uint32_t)(step % 2);
    hits += liked;
    if (check("reward", p2b_agent_reward(agent, id, liked ? 1.0f : 0.0f))) return 1;
    while ((s = p2b_agent_poll_envelope(agent, envelope, sizeof envelope, &written)) == P2B_OK)
      ++reports;
    if (check("poll", s)) return 1;
  }
  printf("consumer(c): p2b %s, %zu-byte arena, %d/%d rewarded, %d sealed reports\n",
         p2b_version_string(), bytes, hits, STEPS, reports);
  free(arena);
  return hits > STEPS / 2 ? 0 : 1;
}
