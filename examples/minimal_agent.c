/* The smallest complete use of p2b from C: size the arena, set up an agent in
 * caller memory, decide, reward, ship reports, save the state. The "user"
 * here prefers action 2 whenever the first context feature dominates.
 *
 *   build: part of the CMake build (target p2b_example_minimal)
 *   run:   ./build-host/examples/p2b_example_minimal
 */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <stdio.h>
#include <stdlib.h>

#include "p2b.h"

#define DIM 3
#define ACTIONS 4

/* A real app ships a trained codebook (k-means over the q-digit simplex);
 * four centroids are enough to show the call. */
static const float kCodebook[4 * DIM] = {
    0.8f, 0.1f, 0.1f, 0.1f, 0.8f, 0.1f, 0.1f, 0.1f, 0.8f, 0.34f, 0.33f, 0.33f,
};

/* Placeholder deployment keys. A real app embeds the public key files that
 * p2b-keygen writes for its shuffler and analyzer. */
static const uint8_t kShufflerKey[P2B_KEY_BYTES] = {0x51, 0x5f, 0x0c, 0x9a};
static const uint8_t kAnalyzerKey[P2B_KEY_BYTES] = {0xa7, 0x13, 0x42, 0x08};
static const uint8_t kVerifyKey[P2B_KEY_BYTES] = {0x3c, 0x77, 0x21, 0x90};
/* The device's state key (P2B_STATE_KEY_BYTES), fixed for the example. */
static const uint8_t kStateKey[P2B_STATE_KEY_BYTES] = {0x6b, 0x65, 0x79};

static int fail(const char* what, p2b_status s) {
  fprintf(stderr, "%s: %s\n", what, p2b_status_str(s));
  return 1;
}

int main(void) {
  p2b_config cfg;
  p2b_agent* agent = NULL;
  uint8_t envelope[P2B_ENVELOPE_BYTES];
  size_t envelope_len = 0;
  p2b_privacy ledger;
  p2b_status s;
  size_t bytes = 0, state_bytes = 0, written = 0;
  void *arena = NULL, *state = NULL;
  int step, hits = 0, late_hits = 0;

  if ((s = p2b_config_default(&cfg)) != P2B_OK) return fail("config", s);
  cfg.dim = DIM;
  cfg.n_actions = ACTIONS;
  cfg.centroids = kCodebook;
  cfg.n_codes = 4;
  cfg.epsilon_budget = 3.0; /* stop sharing after ~4 reports at p = 0.5 */
  cfg.shuffler_public_key = kShufflerKey;
  cfg.analyzer_public_key = kAnalyzerKey;
  cfg.analyzer_verify_key = kVerifyKey;

  if ((s = p2b_agent_footprint(&cfg, &bytes)) != P2B_OK) return fail("footprint", s);
  if (posix_memalign(&arena, P2B_ARENA_ALIGN, bytes) != 0) return 1;
  if ((s = p2b_agent_init(arena, bytes, &cfg, &agent)) != P2B_OK) return fail("init", s);
  printf("p2b %s: agent in %zu bytes of caller memory\n", p2b_version_string(), bytes);

  srand(7);
  for (step = 0; step < 2000; ++step) {
    float x[DIM];
    uint32_t action = 0;
    uint64_t id = 0;
    float reward;
    x[0] = (float)(rand() % 100);
    x[1] = (float)(rand() % 100);
    x[2] = (float)(rand() % 100);
    if ((s = p2b_agent_decide(agent, x, DIM, &action, &id)) != P2B_OK) return fail("decide", s);
    reward = ((x[0] > x[1] && x[0] > x[2]) ? action == 2 : action == 0) ? 1.0f : 0.0f;
    if ((s = p2b_agent_reward(agent, id, reward)) != P2B_OK) return fail("reward", s);
    hits += reward > 0.0f;
    if (step >= 1500) late_hits += reward > 0.0f;
    while ((s = p2b_agent_poll_envelope(agent, envelope, sizeof envelope, &envelope_len)) ==
           P2B_OK) {
      /* Upload these bytes to the shuffler as they are. */
      printf("  report: %zu-byte sealed envelope after step %d\n", envelope_len, step);
    }
    if (p2b_is_error(s)) return fail("poll", s);
  }
  if ((s = p2b_agent_privacy(agent, &ledger)) != P2B_OK) return fail("privacy", s);
  printf("reward rate: %.2f overall, %.2f over the last 500 steps\n", hits / 2000.0,
         late_hits / 500.0);
  printf("privacy: %llu reports, epsilon spent %.3f of %.3f%s\n",
         (unsigned long long)ledger.reports, ledger.epsilon_spent, ledger.epsilon_budget,
         ledger.exhausted ? " (budget exhausted: reporting stopped)" : "");

  if ((s = p2b_agent_save_size(agent, &state_bytes)) != P2B_OK) return fail("save size", s);
  state = malloc(state_bytes);
  if (state == NULL) return 1;
  /* The state is MACed under a per-device key: a real app creates it once and
   * keeps it in the platform keystore. */
  if ((s = p2b_agent_save(agent, kStateKey, state, state_bytes, &written)) != P2B_OK)
    return fail("save", s);
  printf("saved state: %zu bytes\n", written);
  free(state);
  free(arena);
  return late_hits > 250 ? 0 : 1; /* it must have learned the preference */
}
