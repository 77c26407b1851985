/* The Cortex-M4 test image: the agent through the C API, its arena in a
 * static buffer, under qemu's mps2-an386 (scripts/cortex-m-test.sh).
 * Exercises init, decide/reward learning, encode, sealed reports (opened
 * again here with the test keys), save/restore in clear and encrypted, and a
 * model bundle signed here and applied to a fresh agent, and two P-FCB
 * agents exchanging a share. Prints every check
 * and "p2b cortex-m4: PASS"; main's status becomes qemu's exit code.
 *
 * P2B_TEST_MALLOC_TRAP (scripts/cortex-m-test.sh --malloc-trap) builds a
 * variant that calls malloc on purpose, to show the trap firing. */
#include <math.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "p2b.h"
#include "test_io.h"
#include "test_wire.h"

#define DIM 10
#define ACTIONS 10
#define CODES 64
#define STEPS 1500
#define ARENA_BYTES (64u * 1024u)

static _Alignas(P2B_ARENA_ALIGN) uint8_t arena_a[ARENA_BYTES];
static _Alignas(P2B_ARENA_ALIGN) uint8_t arena_b[ARENA_BYTES];
static float codebook[CODES * DIM];
static uint8_t state[16 * 1024];
static uint8_t bundle[16 * 1024];
static double export_a[ACTIONS * DIM * DIM];
static double export_b[ACTIONS * DIM];
static test_keys keys;

/* Deterministic contexts: an LCG, so the run is identical every time. */
static uint32_t lcg_state = 12345u;
static uint32_t lcg(void) {
  lcg_state = lcg_state * 1664525u + 1013904223u;
  return lcg_state >> 8;
}

/* Noise plus one dominant feature, whose index is the action the "user"
 * rewards: a preference a linear policy can learn. */
static void make_context(float* x) {
  for (int i = 0; i < DIM; ++i) x[i] = (float)(lcg() % 100u);
  x[lcg() % DIM] += 300.0f;
}

static uint32_t argmax(const float* x) {
  uint32_t best = 0;
  for (uint32_t i = 1; i < DIM; ++i) {
    if (x[i] > x[best]) best = i;
  }
  return best;
}

/* k = 64 centroids on the simplex: code c leans towards feature c % DIM. */
static void make_codebook(void) {
  for (int c = 0; c < CODES; ++c) {
    float sum = 0.0f;
    float* row = codebook + c * DIM;
    for (int i = 0; i < DIM; ++i) {
      row[i] = 1.0f + (float)((c * 7 + i * 3) % 5) + (i == c % DIM ? 10.0f : 0.0f);
      sum += row[i];
    }
    for (int i = 0; i < DIM; ++i) row[i] /= sum;
  }
}

static void make_config(p2b_config* cfg) {
  check_status(p2b_config_default(cfg), P2B_OK, "config default");
  cfg->dim = DIM;
  cfg->n_actions = ACTIONS;
  cfg->centroids = codebook;
  cfg->n_codes = CODES;
  cfg->shuffler_public_key = keys.shuffler_pk;
  cfg->analyzer_public_key = keys.analyzer_pk;
  cfg->analyzer_verify_key = keys.verify_pk;
  /* rng_mode stays P2B_RNG_SYSTEM: the port's default random source, here
   * the test-only entropy hook. */
}

/* 1 when both agents score every context of a fixed set alike. */
static int same_scores(p2b_agent* x_agent, p2b_agent* y_agent) {
  float mx[ACTIONS], wx[ACTIONS], my[ACTIONS], wy[ACTIONS], x[DIM];
  const uint32_t saved = lcg_state;
  lcg_state = 99u;
  int same = 1;
  for (int n = 0; n < 8 && same; ++n) {
    make_context(x);
    if (p2b_agent_scores(x_agent, x, DIM, mx, wx, ACTIONS) != P2B_OK ||
        p2b_agent_scores(y_agent, x, DIM, my, wy, ACTIONS) != P2B_OK) {
      same = 0;
    }
    for (int a = 0; a < ACTIONS && same; ++a) {
      same = fabsf(mx[a] - my[a]) <= 1e-4f * (1.0f + fabsf(mx[a])) &&
             fabsf(wx[a] - wy[a]) <= 1e-4f * (1.0f + fabsf(wx[a]));
    }
  }
  lcg_state = saved;
  return same;
}

/* Decide/reward with rewards for the context's largest feature; every
 * report is opened again and checked. Returns the late hit rate. */
static double learn(p2b_agent* agent, uint32_t* reports, uint32_t* opened) {
  uint32_t late_hits = 0;
  for (int step = 0; step < STEPS; ++step) {
    float x[DIM];
    uint32_t action = 0;
    uint64_t id = 0;
    make_context(x);
    if (p2b_agent_decide(agent, x, DIM, &action, &id) != P2B_OK) return -1.0;
    const float reward = action == argmax(x) ? 1.0f : 0.0f;
    if (p2b_agent_reward(agent, id, reward) != P2B_OK) return -1.0;
    if (step >= STEPS - 500) late_hits += reward > 0.0f;
    uint8_t envelope[P2B_ENVELOPE_BYTES];
    size_t written = 0;
    p2b_status s;
    while ((s = p2b_agent_poll_envelope(agent, envelope, sizeof envelope, &written)) == P2B_OK) {
      p2b_tuple rep;
      ++*reports;
      if (written == P2B_ENVELOPE_BYTES && open_envelope(&keys, envelope, &rep) == 0 &&
          rep.code < CODES && rep.action < ACTIONS && (rep.reward == 0.0f || rep.reward == 1.0f)) {
        ++*opened;
      }
    }
    if (p2b_is_error(s)) {
      check_status(s, P2B_OK, "poll_envelope");
      return -1.0;
    }
  }
  return late_hits / 500.0;
}

static void check_encode(p2b_agent* agent) {
  float x[DIM], centroid[DIM];
  uint32_t code = 0, again = 0;
  make_context(x);
  check_status(p2b_agent_encode(agent, x, DIM, &code), P2B_OK, "encode");
  check_status(p2b_agent_encode(agent, x, DIM, &again), P2B_OK, "encode again");
  check(code < CODES && code == again, "encode: valid and repeatable code");
  check_status(p2b_agent_centroid(agent, code, centroid, DIM), P2B_OK, "centroid");
  check(memcmp(centroid, codebook + code * DIM, sizeof centroid) == 0,
        "centroid matches the codebook row");
  check_status(p2b_agent_encode(agent, x, DIM - 1, &code), P2B_ERR_DIMENSION_MISMATCH,
               "encode rejects a short context");
}

static void check_save_restore(p2b_agent* agent, const p2b_config* cfg) {
  p2b_agent* copy = NULL;
  size_t need = 0, written = 0;
  static const uint8_t key[P2B_STATE_KEY_BYTES] = {1, 2, 3, 4, 5, 6, 7, 8};
  static const uint8_t other_key[P2B_STATE_KEY_BYTES] = {1, 2, 3, 4, 5, 6, 7, 9};
  check_status(p2b_agent_save_size(agent, &need), P2B_OK, "save_size");
  out_str("       state: ");
  out_u32((uint32_t)need);
  out_str(" bytes\n");
  check(need + P2B_STATE_ENCRYPTION_OVERHEAD <= sizeof state, "state fits the static buffer");
  check_status(p2b_agent_save(agent, key, state, sizeof state, &written), P2B_OK,
               "save (keyed BLAKE2b MAC)");
  check_status(p2b_agent_init(arena_b, sizeof arena_b, cfg, &copy), P2B_OK, "init second agent");
  check_status(p2b_agent_restore(copy, other_key, state, written), P2B_ERR_CORRUPT_STATE,
               "restore rejects another key");
  check_status(p2b_agent_restore(copy, key, state, written), P2B_OK, "restore");
  check(same_scores(agent, copy), "restored agent scores like the original");
  state[written / 2] ^= 0x40u;
  check_status(p2b_agent_restore(copy, key, state, written), P2B_ERR_CORRUPT_STATE,
               "restore rejects a flipped byte");

  check_status(p2b_agent_save_encrypted(agent, key, state, sizeof state, &written), P2B_OK,
               "save_encrypted (XChaCha20-Poly1305)");
  check_status(p2b_agent_init(arena_b, sizeof arena_b, cfg, &copy), P2B_OK, "re-init second");
  check_status(p2b_agent_restore_encrypted(copy, key, state, written), P2B_OK, "restore_encrypted");
  check(same_scores(agent, copy), "decrypted agent scores like the original");
}

static void check_model_apply(p2b_agent* agent, const p2b_config* cfg) {
  p2b_agent* fresh = NULL;
  p2b_fingerprints fp;
  uint64_t version = 0;
  check_status(p2b_agent_fingerprints(agent, &fp), P2B_OK, "fingerprints");
  check_status(p2b_agent_export(agent, export_a, export_b, ACTIONS, DIM), P2B_OK, "export");
  const model_source raw = {DIM, ACTIONS, export_a, export_b, fp.codebook, 5, 1};
  const model_source src = {DIM, ACTIONS, export_a, export_b, fp.codebook, 1, 0};
  size_t len = build_model_bundle(&keys, &raw, bundle, sizeof bundle);
  check(len > 0, "raw-baseline bundle built");
  check_status(p2b_agent_init(arena_b, sizeof arena_b, cfg, &fresh), P2B_OK, "init fresh agent");
  check_status(p2b_agent_apply_model(fresh, bundle, len), P2B_ERR_MODEL_KIND,
               "apply_model refuses a raw-baseline model");
  len = build_model_bundle(&keys, &src, bundle, sizeof bundle);
  check(len > 0, "model bundle built and Ed25519-signed on the device");
  check_status(p2b_agent_init(arena_b, sizeof arena_b, cfg, &fresh), P2B_OK, "init fresh agent");
  bundle[len - 1] ^= 1u;
  check_status(p2b_agent_apply_model(fresh, bundle, len), P2B_ERR_BAD_SIGNATURE,
               "apply_model rejects a bad signature");
  bundle[len - 1] ^= 1u;
  check_status(p2b_agent_apply_model(fresh, bundle, len), P2B_OK, "apply_model");
  check_status(p2b_agent_model_version(fresh, &version), P2B_OK, "model version");
  check(version == 1, "model version 1 applied");
  check(same_scores(agent, fresh), "warm-started agent scores like the source");
  check_status(p2b_agent_apply_model(fresh, bundle, len), P2B_ERR_MODEL_ROLLBACK,
               "apply_model refuses a replay");
}

/* Two P-FCB agents in static arenas: the oracle's decisions, a release with
 * the seeded generator's noise, and one agent applying the other's share. */
static _Alignas(P2B_ARENA_ALIGN) uint8_t cmab_arena_a[2048];
static _Alignas(P2B_ARENA_ALIGN) uint8_t cmab_arena_b[2048];

static void check_cmab(void) {
  static const double cost[6] = {0.2, 0.6, 0.1, 0.5, 0.3, 0.7};
  static const uint32_t capacity[6] = {5, 9, 3, 7, 4, 6};
  static const uint32_t quality_pct[6] = {70, 90, 20, 50, 40, 95};
  p2b_cmab_config cc;
  p2b_cmab *a = NULL, *b = NULL;
  p2b_cmab_privacy spent;
  uint8_t share[128];
  size_t need = 0, n = 0;
  uint32_t units[6], good[6], accepted = 0, rejected = 0, shares = 0, i;
  int t;
  check_status(p2b_cmab_config_default(&cc), P2B_OK, "cmab: config default");
  cc.producers = 6;
  cc.cost = cost;
  cc.capacity = capacity;
  cc.rng_mode = P2B_RNG_SEEDED;
  cc.seed = 3;
  cc.window_start = 20;
  cc.window_stop = 400;
  cc.max_peers = 2;
  cc.agents = 2;
  check_status(p2b_cmab_footprint(&cc, &need), P2B_OK, "cmab: footprint");
  check(need <= sizeof cmab_arena_a, "cmab: arena fits the static buffer");
  check_status(p2b_cmab_init(cmab_arena_a, sizeof cmab_arena_a, &cc, &a), P2B_OK, "cmab: init a");
  check_status(p2b_cmab_init(cmab_arena_b, sizeof cmab_arena_b, &cc, &b), P2B_OK, "cmab: init b");
  for (t = 0; t < 500; ++t) {
    if (p2b_cmab_decide(a, units, 6) != P2B_OK) break;
    for (i = 0; i < 6; ++i) good[i] = units[i] * quality_pct[i] / 100u;
    if (p2b_cmab_observe(a, good, 6) != P2B_OK) break;
    if (p2b_cmab_poll_share(a, share, sizeof share, &n) == P2B_OK) {
      ++shares;
      if (p2b_cmab_apply_share(b, 0, share, n, &accepted, &rejected) != P2B_OK) break;
    }
  }
  check(t == 500, "cmab: 500 rounds decided and observed");
  check(shares == 9, "cmab: the paper schedule released 9 times in [20, 400]");
  check(accepted + rejected == 6, "cmab: the peer judged every producer of the last share");
  check_status(p2b_cmab_privacy_spent(a, &spent), P2B_OK, "cmab: privacy spent");
  check(spent.releases == shares && spent.element_epsilon > 0.0 &&
            spent.element_epsilon < spent.paper_epsilon,
        "cmab: the exact per-element epsilon is below the paper's claim");
  out_str("       cmab arena: ");
  out_u32((uint32_t)need);
  out_str(" bytes (m=6, 2 peers)\n");
}

int main(void) {
  p2b_config cfg;
  p2b_agent* agent = NULL;
  size_t need = 0;
  uint32_t reports = 0, opened = 0;
  p2b_privacy ledger;

  out_str("p2b cortex-m4 test image, libp2b ");
  out_str(p2b_version_string());
  out_str("\nentropy: TEST-ONLY deterministic source (qemu has no TRNG; not secure)\n");
#ifdef P2B_TEST_MALLOC_TRAP
  out_str("calling malloc on purpose; the trap must fire:\n");
  void* volatile p = malloc(16);
  out_str(p != NULL ? "malloc returned memory\n" : "malloc returned NULL\n");
  return 1;
#endif
  check(sodium_init() >= 0, "libsodium starts");
  check(derive_test_keys(&keys) == 0, "test keys derived (seed_keypair)");
  make_codebook();
  make_config(&cfg);

  check_status(p2b_agent_footprint(&cfg, &need), P2B_OK, "footprint");
  out_str("       arena: ");
  out_u32((uint32_t)need);
  out_str(" bytes (d=10, K=10, k=64)\n");
  check(need <= sizeof arena_a, "arena fits the static buffer");
  check_status(p2b_agent_init(arena_a, sizeof arena_a, &cfg, &agent), P2B_OK, "init");

  const double late = learn(agent, &reports, &opened);
  out_str("       late hit rate: ");
  out_milli(late);
  out_str(" (chance 0.100)\n");
  check(late > 0.5, "decide/reward: the agent learned the preference");
  check(reports > 0, "poll_envelope produced sealed envelopes");
  check(opened == reports, "every envelope opens to a valid (code, action, reward)");
  out_str("       reports: ");
  out_u32(reports);
  out_str("\n");
  check_status(p2b_agent_privacy(agent, &ledger), P2B_OK, "privacy ledger");
  check(ledger.reports == reports, "ledger counts every report");

  check_encode(agent);
  check_save_restore(agent, &cfg);
  check_model_apply(agent, &cfg);
  check_cmab();

  if (failures() != 0) {
    out_str("p2b cortex-m4: FAIL (");
    out_u32((uint32_t)failures());
    out_str(" checks)\n");
    return 1;
  }
  out_str("p2b cortex-m4: PASS\n");
  return 0;
}
