/* Drives the C API from strict C99: footprint, init in caller memory, decide,
 * reward, poll, keyed save/restore, warm-start models (kinds, not-after
 * time), shuffler-key lists, a shared model's signed warm start, and a few
 * errors. Exits non-zero on failure. */
#define _POSIX_C_SOURCE 200112L /* posix_memalign under strict C99 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_api_test_signer.h"
#include "p2b.h"

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

#define DIM 4
#define ACTIONS 3
#define CODES 4

static void* arena(size_t bytes) {
  void* p = NULL;
  size_t rounded = (bytes + P2B_ARENA_ALIGN - 1) / P2B_ARENA_ALIGN * P2B_ARENA_ALIGN;
  if (posix_memalign(&p, P2B_ARENA_ALIGN, rounded) != 0) return NULL;
  return p;
}

/* Any 32 bytes serve as box keys here: sealing to them works. Models are
 * verified with c_test_verify_key(). Real apps load the files p2b-keygen
 * writes. */
static const uint8_t kShufflerKey[P2B_KEY_BYTES] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
static const uint8_t kAnalyzerKey[P2B_KEY_BYTES] = {9, 8, 7, 6, 5, 4, 3, 2, 1};
/* The app's state key; real apps keep one per device in the keystore. */
static const uint8_t kStateKey[P2B_STATE_KEY_BYTES] = {0xC0, 0xFF, 0xEE, 7};
static const uint8_t kOtherStateKey[P2B_STATE_KEY_BYTES] = {0xC0, 0xFF, 0xEE, 8};

/* Warm-start models: a raw baseline is refused by default and bumps no
 * version; a not-after time is checked against the time given. */
static void check_models(p2b_agent* agent) {
  static uint8_t bundle[4096];
  size_t len;
  uint64_t priv = 99, raw = 99;
  len = c_test_bundle(agent, DIM, ACTIONS, P2B_MODEL_RAW_BASELINE, 100, 0, bundle, sizeof bundle);
  CHECK(len > 0);
  CHECK(p2b_agent_apply_model(agent, bundle, len) == P2B_ERR_MODEL_KIND);
  CHECK(p2b_agent_apply_model_at(agent, bundle, len, 1795000000u) == P2B_ERR_MODEL_KIND);
  CHECK(p2b_agent_model_version_of(agent, P2B_MODEL_PRIVATE, &priv) == P2B_OK && priv == 0);
  CHECK(p2b_agent_model_version_of(agent, P2B_MODEL_RAW_BASELINE, &raw) == P2B_OK && raw == 0);
  CHECK(p2b_agent_model_version_of(agent, 2, &raw) == P2B_ERR_MODEL_KIND);

  len =
      c_test_bundle(agent, DIM, ACTIONS, P2B_MODEL_PRIVATE, 3, 1795003600u, bundle, sizeof bundle);
  CHECK(len > 0);
  CHECK(p2b_agent_apply_model_at(agent, bundle, len, 1795003601u) == P2B_ERR_MODEL_EXPIRED);
  CHECK(p2b_agent_model_version(agent, &priv) == P2B_OK && priv == 0);
  CHECK(p2b_agent_apply_model_at(agent, bundle, len, 1795003600u) == P2B_OK);
  CHECK(p2b_agent_model_version(agent, &priv) == P2B_OK && priv == 3);
  CHECK(p2b_agent_apply_model_at(agent, bundle, len, 1795000000u) == P2B_ERR_MODEL_ROLLBACK);
}

/* Shuffler-key lists: a good list moves the outer key (and its fingerprint
 * at the front of every new envelope); a truncated, tampered, expired or
 * rolled-back one changes nothing; the version survives save/restore. */
static const uint8_t kNextShufflerKey[P2B_KEY_BYTES] = {7, 7, 7, 1};

static uint64_t key_list_version(const p2b_agent* agent) {
  uint64_t v = 99;
  CHECK(p2b_agent_key_list_version(agent, &v) == P2B_OK);
  return v;
}

static void check_key_lists(p2b_agent* agent, const p2b_config* cfg, size_t need) {
  static uint8_t list[P2B_KEY_LIST_BYTES], state[1 << 14];
  uint8_t next_fp[P2B_FINGERPRINT_BYTES], old_envelope[P2B_ENVELOPE_BYTES];
  p2b_fingerprints fp;
  p2b_agent* copy = NULL;
  size_t len, written = 0;
  void* spare = arena(need);
  CHECK(spare != NULL);
  CHECK(p2b_key_list_bytes() == P2B_KEY_LIST_BYTES);
  CHECK(key_list_version(agent) == 0);
  CHECK(p2b_agent_fingerprints(agent, &fp) == P2B_OK);
  memset(old_envelope, 0, sizeof old_envelope);
  memcpy(old_envelope, fp.shuffler, P2B_FINGERPRINT_BYTES); /* sealed to the configured key */
  CHECK(p2b_agent_envelope_key_accepted(agent, old_envelope, sizeof old_envelope) == P2B_OK);

  len = c_test_key_list(4, kNextShufflerKey, kShufflerKey, 1795003600u, list, sizeof list);
  CHECK(len == P2B_KEY_LIST_BYTES);
  CHECK(p2b_agent_apply_key_list(agent, list, len - 1, 0) == P2B_ERR_MALFORMED_INPUT);
  list[100] ^= 1;
  CHECK(p2b_agent_apply_key_list(agent, list, len, 0) == P2B_ERR_BAD_SIGNATURE);
  list[100] ^= 1;
  CHECK(p2b_agent_apply_key_list(agent, list, len, 1795003601u) == P2B_ERR_KEY_LIST_EXPIRED);
  CHECK(key_list_version(agent) == 0);
  CHECK(p2b_agent_apply_key_list(agent, list, len, 1795003600u) == P2B_OK);
  CHECK(key_list_version(agent) == 4);
  CHECK(p2b_agent_apply_key_list(agent, list, len, 0) == P2B_ERR_KEY_LIST_ROLLBACK);
  CHECK(p2b_key_fingerprint(kNextShufflerKey, next_fp) == P2B_OK);
  CHECK(p2b_agent_fingerprints(agent, &fp) == P2B_OK);
  CHECK(memcmp(fp.shuffler, next_fp, P2B_FINGERPRINT_BYTES) == 0);
  CHECK(p2b_agent_envelope_key_accepted(agent, old_envelope, sizeof old_envelope) == P2B_OK);

  /* The version and the keys survive a restart. */
  CHECK(p2b_agent_save(agent, kStateKey, state, sizeof state, &written) == P2B_OK);
  CHECK(p2b_agent_init(spare, need, cfg, &copy) == P2B_OK);
  CHECK(p2b_agent_restore(copy, kStateKey, state, written) == P2B_OK);
  CHECK(key_list_version(copy) == 4);
  CHECK(p2b_agent_apply_key_list(copy, list, len, 0) == P2B_ERR_KEY_LIST_ROLLBACK);

  /* A list without the old key retires envelopes sealed to it. */
  len = c_test_key_list(5, kNextShufflerKey, NULL, 0, list, sizeof list);
  CHECK(p2b_agent_apply_key_list(copy, list, len, 1795003600u) == P2B_OK);
  CHECK(p2b_agent_envelope_key_accepted(copy, old_envelope, sizeof old_envelope) ==
        P2B_ERR_KEY_RETIRED);
  free(spare);
}

/* The shared-parameter model from C: signed contexts, a decision, its reward
 * moving theta toward the rewarded item, and a saved state that restores. */
static void check_shared_model(void) {
  p2b_shared_config sc;
  p2b_shared_model *model = NULL, *copy = NULL;
  size_t need = 0, len = 0, written = 0;
  void *mem, *mem2, *state;
  const double items[3 * 2] = {0.6, -0.8, -1.0, 0.0, 0.0, 1.0};
  double theta[2], total[3];
  uint32_t item = 99, i;
  uint64_t id = 0;

  CHECK(p2b_shared_config_default(&sc) == P2B_OK);
  sc.dim = 2;
  sc.max_items = 3;
  sc.tie_rel_tol = 1e-9;
  sc.rng_mode = P2B_RNG_SEEDED;
  CHECK(p2b_shared_model_footprint(&sc, &need) == P2B_OK && need % P2B_ARENA_ALIGN == 0);
  mem = arena(need);
  mem2 = arena(need);
  CHECK(mem != NULL && mem2 != NULL);
  CHECK(p2b_shared_model_init(mem, need, &sc, &model) == P2B_OK);
  /* All three unit items tie at the start: the lowest index wins. */
  CHECK(p2b_shared_model_decide(model, items, 3, 2, &item, &id) == P2B_OK && item == 0);
  CHECK(p2b_shared_model_decide(model, items, 4, 2, &item, &id) == P2B_ERR_ITEM_COUNT);
  for (i = 0; i < 20; ++i) CHECK(p2b_shared_model_learn(model, items + 4, 2, 1.0) == P2B_OK);
  CHECK(p2b_shared_model_theta(model, theta, 2) == P2B_OK && theta[1] > 0.9 && theta[0] == 0.0);
  CHECK(p2b_shared_model_scores(model, items, 3, 2, NULL, NULL, total) == P2B_OK);
  CHECK(total[2] > total[0] && total[2] > total[1]);
  CHECK(p2b_shared_model_reward(model, id, -1.0) == P2B_OK);
  CHECK(p2b_shared_model_save_size(model, &len) == P2B_OK);
  state = malloc(len);
  CHECK(state != NULL);
  CHECK(p2b_shared_model_save(model, kStateKey, state, len, &written) == P2B_OK && written == len);
  CHECK(p2b_shared_model_init(mem2, need, &sc, &copy) == P2B_OK);
  CHECK(p2b_shared_model_restore(copy, kOtherStateKey, state, len) == P2B_ERR_CORRUPT_STATE);
  CHECK(p2b_shared_model_restore(copy, kStateKey, state, len) == P2B_OK);
  CHECK(p2b_shared_model_decide(copy, items, 3, 2, &item, &id) == P2B_OK && item == 2);
  free(state);
  free(mem);
  free(mem2);
}

/* A restart of agent `a` into the arena of `b`: the saved size is the
 * documented one, a short buffer and another key are refused, and the
 * restored agent has spent what `a` had. */
static void check_cmab_restart(const p2b_cmab* a, p2b_cmab* b, const p2b_cmab_privacy* spent) {
  uint8_t key[P2B_STATE_KEY_BYTES];
  uint8_t state[1024];
  size_t size = 0, written = 0;
  p2b_cmab_privacy after;
  memset(key, 7, sizeof key);
  CHECK(p2b_cmab_save_size(a, &size) == P2B_OK && size == 296 + 56 * 3 + 4 * 2);
  CHECK(p2b_cmab_save(a, key, state, size - 1, &written) == P2B_ERR_BUFFER_TOO_SMALL);
  CHECK(p2b_cmab_save(a, key, state, sizeof state, &written) == P2B_OK && written == size);
  CHECK(p2b_cmab_privacy_spent(b, &after) == P2B_OK && after.releases == 0);
  key[0] ^= 1;
  CHECK(p2b_cmab_restore(b, key, state, written) == P2B_ERR_CORRUPT_STATE);
  key[0] ^= 1;
  CHECK(p2b_cmab_restore(b, key, state, written) == P2B_OK);
  CHECK(p2b_cmab_privacy_spent(b, &after) == P2B_OK);
  CHECK(after.releases == spent->releases && after.paper_epsilon == spent->paper_epsilon);
  CHECK(p2b_cmab_restore(NULL, key, state, written) == P2B_ERR_NULL_POINTER);
}

/* Two P-FCB agents from C: they explore, decide by the oracle, release at
 * the window's start, and one learns from the other's share; a replay and a
 * short buffer are refused. */
static void check_cmab(void) {
  static const double cost[3] = {0.2, 0.5, 0.1};
  static const uint32_t capacity[3] = {5, 3, 8};
  p2b_cmab_config cc;
  p2b_cmab *a = NULL, *b = NULL;
  p2b_cmab_privacy spent;
  size_t need = 0, n = 0;
  void *mem_a, *mem_b;
  uint8_t share[512];
  uint32_t units[3], good[3], accepted = 0, rejected = 0, i;
  double seen[3];
  int t, released = 0;
  CHECK(p2b_cmab_config_default(&cc) == P2B_OK);
  cc.producers = 3;
  cc.cost = cost;
  cc.capacity = capacity;
  cc.rng_mode = P2B_RNG_SEEDED;
  cc.window_start = 20;
  cc.omega1 = INFINITY;
  cc.omega2 = 1.0;
  cc.agents = 2;
  cc.max_peers = 2;
  CHECK(p2b_cmab_footprint(&cc, &need) == P2B_OK);
  mem_a = arena(need);
  mem_b = arena(need);
  CHECK(mem_a != NULL && mem_b != NULL);
  CHECK(p2b_cmab_init(mem_a, need, &cc, &a) == P2B_OK);
  CHECK(p2b_cmab_init(mem_b, need, &cc, &b) == P2B_OK);
  for (t = 1; t <= 20; ++t) {
    CHECK(p2b_cmab_decide(a, units, 3) == P2B_OK);
    for (i = 0; i < 3; ++i) {
      CHECK(units[i] <= capacity[i]);
      good[i] = units[i] / 2;
    }
    CHECK(p2b_cmab_observe(a, good, 3) == P2B_OK);
    if (t < 20) CHECK(p2b_cmab_poll_share(a, share, sizeof share, &n) == P2B_NO_REPORT);
  }
  CHECK(p2b_cmab_poll_share(a, share, 4, &n) == P2B_ERR_BUFFER_TOO_SMALL);
  if (p2b_cmab_poll_share(a, share, sizeof share, &n) == P2B_OK) released = 1;
  CHECK(released && n == p2b_cmab_share_size(3));
  CHECK(p2b_cmab_apply_share(b, 1, share, n, &accepted, &rejected) == P2B_OK);
  CHECK(accepted + rejected == 3);
  CHECK(p2b_cmab_apply_share(b, 1, share, n, NULL, NULL) == P2B_ERR_REPLAYED);
  CHECK(p2b_cmab_apply_share(b, 2, share, n, NULL, NULL) == P2B_ERR_ACTION_OUT_OF_RANGE);
  CHECK(p2b_cmab_apply_share(b, 0, share, n - 1, NULL, NULL) == P2B_ERR_MALFORMED_INPUT);
  CHECK(p2b_cmab_estimates(b, seen, NULL, 3) == P2B_OK);
  CHECK(seen[0] > 0.0);
  CHECK(p2b_cmab_privacy_spent(a, &spent) == P2B_OK);
  CHECK(spent.releases == 1 && spent.paper_epsilon > 0.0 && spent.element_epsilon > 0.0);
  CHECK(spent.basic_epsilon == 2.0 * spent.paper_epsilon);
  CHECK(spent.element_mu > 0.0 && spent.sequential_mu == spent.element_mu);
  CHECK(fabs(spent.vector_mu - spent.element_mu * sqrt(3.0)) < 1e-12 * spent.vector_mu);
  CHECK(strcmp(p2b_status_str(P2B_ERR_REPLAYED), "unknown status") != 0);
  check_cmab_restart(a, b, &spent);
  free(mem_a);
  free(mem_b);
}

/* An FCLUB cluster's signed warm start for a shared model from C: it scores
 * as a model that learned the cluster's rounds, a tampered, older or expired
 * bundle is refused, and the version survives save and restore. */
static void check_shared_warm_start(void) {
  /* Two rounds of the cluster: x = (0.6, -0.8) with y = 1, (0, 1) with y = 0. */
  static const double xs[2 * 2] = {0.6, -0.8, 0.0, 1.0};
  static const double ys[2] = {1.0, 0.0};
  const double gram[2 * 2] = {0.36, -0.48, -0.48, 1.64};
  const double moment[2] = {0.6, -0.8};
  const double items[3 * 2] = {0.6, -0.8, -1.0, 0.0, 0.0, 1.0};
  p2b_shared_config sc;
  p2b_shared_model *fed = NULL, *warm = NULL, *copy = NULL;
  size_t need = 0, len = 0, written = 0, blen = 0;
  void *mem, *mem2, *mem3, *state;
  uint8_t bundle[2048];
  double t_fed[3], t_warm[3];
  uint64_t version = 99;
  uint32_t i;

  CHECK(p2b_shared_config_default(&sc) == P2B_OK);
  sc.dim = 2;
  sc.max_items = 3;
  sc.rng_mode = P2B_RNG_SEEDED;
  sc.analyzer_verify_key = c_test_verify_key();
  CHECK(p2b_shared_model_footprint(&sc, &need) == P2B_OK);
  mem = arena(need);
  mem2 = arena(need);
  mem3 = arena(need);
  CHECK(mem != NULL && mem2 != NULL && mem3 != NULL);
  CHECK(p2b_shared_model_init(mem, need, &sc, &fed) == P2B_OK);
  CHECK(p2b_shared_model_init(mem2, need, &sc, &warm) == P2B_OK);
  for (i = 0; i < 2; ++i) CHECK(p2b_shared_model_learn(fed, xs + 2 * i, 2, ys[i]) == P2B_OK);

  blen = c_test_shared_bundle(2, gram, moment, 1.0, 2, 1795000100, bundle, sizeof bundle);
  CHECK(blen > 0);
  CHECK(p2b_shared_model_apply_model_at(warm, bundle, blen, 1795000200) == P2B_ERR_MODEL_EXPIRED);
  bundle[blen - 1] ^= 1;
  CHECK(p2b_shared_model_apply_model(warm, bundle, blen) == P2B_ERR_BAD_SIGNATURE);
  bundle[blen - 1] ^= 1;
  CHECK(p2b_shared_model_model_version(warm, &version) == P2B_OK && version == 0);
  CHECK(p2b_shared_model_apply_model_at(warm, bundle, blen, 1795000000) == P2B_OK);
  CHECK(p2b_shared_model_model_version(warm, &version) == P2B_OK && version == 2);
  CHECK(p2b_shared_model_scores(fed, items, 3, 2, NULL, NULL, t_fed) == P2B_OK);
  CHECK(p2b_shared_model_scores(warm, items, 3, 2, NULL, NULL, t_warm) == P2B_OK);
  for (i = 0; i < 3; ++i) CHECK(fabs(t_fed[i] - t_warm[i]) < 1e-9);

  CHECK(p2b_shared_model_save_size(warm, &len) == P2B_OK);
  state = malloc(len);
  CHECK(state != NULL);
  CHECK(p2b_shared_model_save(warm, kStateKey, state, len, &written) == P2B_OK && written == len);
  CHECK(p2b_shared_model_init(mem3, need, &sc, &copy) == P2B_OK);
  CHECK(p2b_shared_model_restore(copy, kStateKey, state, len) == P2B_OK);
  CHECK(p2b_shared_model_model_version(copy, &version) == P2B_OK && version == 2);
  CHECK(p2b_shared_model_apply_model(copy, bundle, blen) == P2B_ERR_MODEL_ROLLBACK);
  blen = c_test_shared_bundle(2, gram, moment, 1.0, 3, 0, bundle, sizeof bundle);
  CHECK(blen > 0 && p2b_shared_model_apply_model(copy, bundle, blen) == P2B_OK);
  CHECK(p2b_shared_model_model_version(copy, NULL) == P2B_ERR_NULL_POINTER);
  free(state);
  free(mem);
  free(mem2);
  free(mem3);
}

int main(void) {
  static const float codebook[CODES * DIM] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  p2b_config cfg;
  size_t need = 0, state_len = 0, written = 0, env_size = 0;
  void *mem, *mem2, *state;
  p2b_agent *agent = NULL, *copy = NULL;
  uint32_t action = 0, code = 0, i;
  uint64_t id = 0;
  p2b_tuple rep;
  p2b_privacy ledger;
  int reports = 0;
  float x[DIM] = {0.1f, 0.2f, 0.3f, 0.4f};

  CHECK(p2b_version() == P2B_VERSION_NUMBER);
  CHECK(strcmp(p2b_status_str(P2B_ERR_NULL_POINTER), "a required pointer argument is NULL") == 0);
  CHECK(p2b_config_default(&cfg) == P2B_OK);
  cfg.dim = DIM;
  cfg.n_actions = ACTIONS;
  cfg.centroids = codebook;
  cfg.n_codes = CODES;
  cfg.window = 2;
  cfg.rng_mode = P2B_RNG_SEEDED;
  cfg.seed = 42;
  cfg.shuffler_public_key = kShufflerKey;
  cfg.analyzer_public_key = kAnalyzerKey;
  cfg.analyzer_verify_key = c_test_verify_key();
  CHECK(p2b_agent_footprint(&cfg, &need) == P2B_OK);
  CHECK(p2b_envelope_size(&cfg, &env_size) == P2B_OK && env_size == P2B_ENVELOPE_BYTES);
  CHECK(need > 0 && need % P2B_ARENA_ALIGN == 0);

  mem = arena(need);
  mem2 = arena(need);
  CHECK(mem != NULL && mem2 != NULL);
  CHECK(p2b_agent_init(mem, need - 1, &cfg, &agent) == P2B_ERR_ARENA_TOO_SMALL);
  CHECK(agent == NULL);
  CHECK(p2b_agent_init(mem, need, &cfg, &agent) == P2B_OK);
  CHECK(agent != NULL);

  for (i = 0; i < 200; ++i) {
    x[i % DIM] += 0.25f;
    CHECK(p2b_agent_decide(agent, x, DIM, &action, &id) == P2B_OK);
    CHECK(action < ACTIONS);
    CHECK(p2b_agent_reward(agent, id, action == 2 ? 1.0f : 0.0f) == P2B_OK);
    if (i % 2 == 0) {
      while (p2b_agent_poll_tuple(agent, &rep) == P2B_OK) {
        CHECK(rep.code < CODES && rep.action < ACTIONS);
        ++reports;
      }
    } else {
      uint8_t envelope[P2B_ENVELOPE_BYTES];
      size_t written = 0;
      while (p2b_agent_poll_envelope(agent, envelope, sizeof envelope, &written) == P2B_OK) {
        CHECK(written == P2B_ENVELOPE_BYTES);
        ++reports;
      }
    }
  }
  CHECK(reports > 20 && reports < 80); /* 100 windows at p = 0.5 */
  CHECK(p2b_agent_privacy(agent, &ledger) == P2B_OK);
  CHECK(ledger.reports == (uint64_t)reports);
  CHECK(fabs(ledger.epsilon_per_report - 0.693147) < 1e-5);

  CHECK(p2b_agent_encode(agent, x, DIM, &code) == P2B_OK);
  CHECK(code < CODES);

  /* Errors, and an unchanged agent afterwards. */
  CHECK(p2b_agent_decide(agent, x, DIM - 1, &action, &id) == P2B_ERR_DIMENSION_MISMATCH);
  CHECK(p2b_agent_reward(agent, id, 1.5f) == P2B_ERR_REWARD_OUT_OF_RANGE);
  CHECK(p2b_agent_reward(agent, id, 1.0f) == P2B_ERR_ALREADY_REWARDED);
  CHECK(p2b_is_error(P2B_ERR_ALREADY_REWARDED) && !p2b_is_error(P2B_NO_REPORT));

  /* Save, restore into a second arena, and decide identically from there on. */
  CHECK(p2b_agent_save_size(agent, &state_len) == P2B_OK);
  state = malloc(state_len);
  CHECK(state != NULL);
  CHECK(p2b_agent_save(agent, kStateKey, state, state_len, &written) == P2B_OK &&
        written == state_len);
  CHECK(p2b_agent_init(mem2, need, &cfg, &copy) == P2B_OK);
  CHECK(p2b_agent_restore(copy, kOtherStateKey, state, state_len) == P2B_ERR_CORRUPT_STATE);
  CHECK(p2b_agent_restore(copy, NULL, state, state_len) == P2B_ERR_NULL_POINTER);
  CHECK(p2b_agent_restore(copy, kStateKey, state, state_len) == P2B_OK);
  for (i = 0; i < 50; ++i) {
    uint32_t a1 = 0, a2 = 0;
    uint64_t id1 = 0, id2 = 0;
    x[(i * 3) % DIM] += 0.5f;
    CHECK(p2b_agent_decide(agent, x, DIM, &a1, &id1) == P2B_OK);
    CHECK(p2b_agent_decide(copy, x, DIM, &a2, &id2) == P2B_OK);
    CHECK(a1 == a2 && id1 == id2);
    CHECK(p2b_agent_reward(agent, id1, 1.0f) == P2B_OK);
    CHECK(p2b_agent_reward(copy, id2, 1.0f) == P2B_OK);
  }
  ((unsigned char*)state)[state_len / 2] ^= 1u;
  CHECK(p2b_agent_restore(copy, kStateKey, state, state_len) == P2B_ERR_CORRUPT_STATE);

  check_models(copy);
  check_key_lists(copy, &cfg, need);
  check_shared_model();
  check_shared_warm_start();
  check_cmab();

  /* Forget: the last decision's id expires and learning starts over. */
  {
    uint32_t a = 0;
    uint64_t last = 0;
    CHECK(p2b_agent_decide(agent, x, DIM, &a, &last) == P2B_OK);
    CHECK(p2b_agent_forget(agent) == P2B_OK);
    CHECK(p2b_agent_reward(agent, last, 1.0f) == P2B_ERR_EXPIRED_DECISION);
    CHECK(p2b_agent_forget(NULL) == P2B_ERR_NULL_POINTER);
  }

  free(state);
  free(mem);
  free(mem2);
  if (failures == 0) printf("c_api_test: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
