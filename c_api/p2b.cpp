// The C API: a thin, checked translation onto the C++ core. It adds no state.
#include "p2b.h"

#include <cmath>

#include "../ports/platform.hpp"
#include "../src/random.hpp"  // epsilon_per_report
#include "c_api_support.hpp"
#include "p2b/agent.hpp"
#include "p2b/blake2b.hpp"
#include "p2b/codebook_format.hpp"
#include "p2b/envelope.hpp"
#include "p2b/key_list.hpp"

namespace {

using p2b::Agent;
using p2b::Status;
using p2b::capi::out;
using p2b::capi::resolve;

static_assert(P2B_ARENA_ALIGN == p2b::kArenaAlign, "alignment macro out of sync");
static_assert(P2B_MAX_DIM == p2b::kMaxDim, "limit macro out of sync");
static_assert(P2B_MAX_ACTIONS == p2b::kMaxActions, "limit macro out of sync");
static_assert(P2B_MAX_CODES == p2b::kMaxCodes, "limit macro out of sync");
static_assert(P2B_MAX_DIGITS == p2b::kMaxDigits, "limit macro out of sync");
static_assert(P2B_MAX_WINDOW == p2b::kMaxWindow, "limit macro out of sync");
static_assert(P2B_MAX_PENDING == p2b::kMaxPending, "limit macro out of sync");
static_assert(P2B_MAX_OUTBOX == p2b::kMaxOutbox, "limit macro out of sync");
static_assert(P2B_ERR_REPLAYED == p2b::kLowestStatus, "status list out of sync");
static_assert(sizeof(p2b_tuple) == sizeof(p2b::Report), "tuple layout out of sync");
static_assert(P2B_ENVELOPE_BYTES == p2b::kEnvelopeBytes, "envelope size out of sync");
static_assert(P2B_KEY_BYTES == p2b::kPublicKeyBytes, "key size out of sync");
static_assert(P2B_FINGERPRINT_BYTES == p2b::kFingerprintBytes, "fingerprint size out of sync");
static_assert(sizeof(p2b_fingerprints) == sizeof(p2b::KeyFingerprints), "fingerprints out of sync");
static_assert(sizeof(p2b_codebook_info) == sizeof(p2b::CodebookInfo), "codebook info out of sync");

static_assert(P2B_STATE_KEY_BYTES == p2b::kAeadKeyBytes, "state key size out of sync");
static_assert(P2B_KEY_LIST_BYTES == p2b::kKeyListBytes, "key list size out of sync");

// The fields the arena's size depends on, and nothing else: a footprint
// query must work before keys, codebook or a crypto port exist.
void shape_to_core(const p2b_config* c, p2b::Config* cfg) {
  cfg->dim = c->dim;
  cfg->n_actions = c->n_actions;
  cfg->n_codes = c->n_codes;
  cfg->window = c->window;
  cfg->pending_capacity = c->pending_capacity;
  cfg->outbox_capacity = c->outbox_capacity;
}

// Translates the C config; returns an error status for fields the C layer owns.
Status to_core(const p2b_config* c, p2b::Config* cfg) {
  if (c->policy > P2B_POLICY_LINTS || c->rng_mode > P2B_RNG_SEEDED) return Status::bad_config;
  shape_to_core(c, cfg);
  cfg->policy = static_cast<p2b::Policy>(c->policy);
  cfg->alpha = c->alpha;
  cfg->ridge_lambda = c->ridge_lambda;
  cfg->ts_scale = c->ts_scale;
  cfg->round_digits = c->round_digits;
  cfg->participation = c->participation;
  cfg->neg_rate = c->neg_rate;
  cfg->epsilon_budget = c->epsilon_budget;
  cfg->centroids = c->centroids;
  const Status random = p2b::capi::random_to_core(*c, cfg);
  if (random != Status::ok) return random;
  if (c->crypto != nullptr) {
    cfg->crypto = p2b::capi::crypto_to_core(*c->crypto);
  } else if (!p2b::port::default_crypto(&cfg->crypto)) {
    return Status::bad_config;  // no built-in crypto on this port
  }
  cfg->shuffler_public_key = c->shuffler_public_key;
  cfg->analyzer_public_key = c->analyzer_public_key;
  cfg->analyzer_verify_key = c->analyzer_verify_key;
  if (c->accept_baseline_models > 1) return Status::bad_config;
  cfg->accept_baseline_models = c->accept_baseline_models == 1;
  cfg->min_model_version = c->min_model_version;
  return Status::ok;
}

// Fingerprints are BLAKE2b, built into the core, so parsing a codebook or
// fingerprinting a key works on every port, P2B_PORT=none included.
p2b::CryptoPort builtin_hash_only() {
  p2b::CryptoPort crypto{};
  crypto.hash = p2b::blake2b;
  return crypto;
}

}  // namespace

extern "C" {

unsigned p2b_version(void) {
  return P2B_VERSION_NUMBER;
}
const char* p2b_version_string(void) {
  return P2B_VERSION_STRING;
}

const char* p2b_status_str(p2b_status s) {
  return p2b::status_str(static_cast<Status>(static_cast<int32_t>(s)));
}
int p2b_is_error(p2b_status s) {
  return s < 0 ? 1 : 0;
}

size_t p2b_arena_align(void) {
  return P2B_ARENA_ALIGN;
}
uint32_t p2b_max_dim(void) {
  return P2B_MAX_DIM;
}
uint32_t p2b_max_actions(void) {
  return P2B_MAX_ACTIONS;
}
uint32_t p2b_max_codes(void) {
  return P2B_MAX_CODES;
}
uint32_t p2b_max_digits(void) {
  return P2B_MAX_DIGITS;
}
uint32_t p2b_max_window(void) {
  return P2B_MAX_WINDOW;
}
uint32_t p2b_max_pending(void) {
  return P2B_MAX_PENDING;
}
uint32_t p2b_max_outbox(void) {
  return P2B_MAX_OUTBOX;
}
size_t p2b_key_bytes(void) {
  return P2B_KEY_BYTES;
}
size_t p2b_fingerprint_bytes(void) {
  return P2B_FINGERPRINT_BYTES;
}
size_t p2b_envelope_bytes(void) {
  return P2B_ENVELOPE_BYTES;
}
size_t p2b_state_key_bytes(void) {
  return P2B_STATE_KEY_BYTES;
}
size_t p2b_state_encryption_overhead(void) {
  return P2B_STATE_ENCRYPTION_OVERHEAD;
}
size_t p2b_key_list_bytes(void) {
  return P2B_KEY_LIST_BYTES;
}

p2b_status p2b_config_default(p2b_config* cfg) {
  if (cfg == nullptr) return P2B_ERR_NULL_POINTER;
  const p2b::Config d;
  *cfg = p2b_config{};
  cfg->policy = P2B_POLICY_LINUCB;
  cfg->alpha = d.alpha;
  cfg->ridge_lambda = d.ridge_lambda;
  cfg->ts_scale = d.ts_scale;
  cfg->round_digits = d.round_digits;
  cfg->window = d.window;
  cfg->participation = d.participation;
  cfg->neg_rate = d.neg_rate;
  cfg->epsilon_budget = INFINITY;
  cfg->pending_capacity = d.pending_capacity;
  cfg->outbox_capacity = d.outbox_capacity;
  cfg->rng_mode = P2B_RNG_SYSTEM;
  return P2B_OK;
}

p2b_status p2b_agent_footprint(const p2b_config* cfg, size_t* bytes) {
  if (cfg == nullptr || bytes == nullptr) return P2B_ERR_NULL_POINTER;
  p2b::Config core;
  shape_to_core(cfg, &core);
  return out(p2b::footprint(core, bytes));
}

p2b_status p2b_agent_init(void* mem, size_t len, const p2b_config* cfg, p2b_agent** agent) {
  if (mem == nullptr || cfg == nullptr || agent == nullptr) return P2B_ERR_NULL_POINTER;
  p2b::Config core;
  Status s = to_core(cfg, &core);
  if (s != Status::ok) return out(s);
  Agent* ag = nullptr;
  s = Agent::init(mem, len, core, &ag);
  if (s != Status::ok) return out(s);
  *agent = reinterpret_cast<p2b_agent*>(ag);
  return P2B_OK;
}

#define P2B_RESOLVE(handle)                 \
  Agent* ag = nullptr;                      \
  do {                                      \
    const Status rs = resolve(handle, &ag); \
    if (rs != Status::ok) return out(rs);   \
  } while (0)

p2b_status p2b_agent_decide(p2b_agent* agent, const float* x, size_t len, uint32_t* action,
                            uint64_t* decision_id) {
  P2B_RESOLVE(agent);
  return out(ag->decide(x, len, action, decision_id));
}

p2b_status p2b_agent_reward(p2b_agent* agent, uint64_t decision_id, float reward) {
  P2B_RESOLVE(agent);
  return out(ag->reward(decision_id, reward));
}

p2b_status p2b_agent_learn(p2b_agent* agent, const float* x, size_t len, uint32_t action,
                           float reward) {
  P2B_RESOLVE(agent);
  return out(ag->learn(x, len, action, reward));
}

p2b_status p2b_agent_forget(p2b_agent* agent) {
  P2B_RESOLVE(agent);
  return out(ag->forget());
}

p2b_status p2b_agent_scores(p2b_agent* agent, const float* x, size_t len, float* mean, float* width,
                            size_t cap) {
  P2B_RESOLVE(agent);
  return out(ag->scores(x, len, mean, width, cap));
}

p2b_status p2b_agent_poll_envelope(p2b_agent* agent, uint8_t* envelope, size_t cap,
                                   size_t* written) {
  P2B_RESOLVE(agent);
  return out(ag->poll_envelope(envelope, cap, written));
}

// Deprecated name, kept in the ABI until 1.0.
p2b_status p2b_agent_poll_report(p2b_agent* agent, uint8_t* envelope, size_t cap, size_t* written) {
  return p2b_agent_poll_envelope(agent, envelope, cap, written);
}

p2b_status p2b_agent_poll_tuple(p2b_agent* agent, p2b_tuple* tuple) {
  P2B_RESOLVE(agent);
  return out(ag->poll_tuple(reinterpret_cast<p2b::Report*>(tuple)));
}

p2b_status p2b_envelope_size(const p2b_config* cfg, size_t* bytes) {
  if (cfg == nullptr || bytes == nullptr) return P2B_ERR_NULL_POINTER;
  *bytes = p2b::kEnvelopeBytes;
  return P2B_OK;
}

p2b_status p2b_agent_fingerprints(const p2b_agent* agent, p2b_fingerprints* o) {
  P2B_RESOLVE(agent);
  return out(ag->fingerprints(reinterpret_cast<p2b::KeyFingerprints*>(o)));
}

p2b_status p2b_key_fingerprint(const uint8_t* public_key, uint8_t* fingerprint) {
  return out(p2b::key_fingerprint(builtin_hash_only(), public_key, fingerprint));
}

p2b_status p2b_agent_privacy(const p2b_agent* agent, p2b_privacy* o) {
  P2B_RESOLVE(agent);
  if (o == nullptr) return P2B_ERR_NULL_POINTER;
  p2b::PrivacyLedger l{};
  const Status s = ag->privacy(&l);
  if (s != Status::ok) return out(s);
  o->epsilon_per_report = l.epsilon_per_report;
  o->epsilon_spent = l.epsilon_spent;
  o->epsilon_budget = l.epsilon_budget;
  o->reports = l.reports;
  o->windows_closed = l.windows_closed;
  o->dropped_outbox_full = l.dropped_outbox_full;
  o->exhausted = l.exhausted ? 1 : 0;
  return P2B_OK;
}

p2b_status p2b_epsilon_per_report(double p, double* epsilon) {
  if (epsilon == nullptr) return P2B_ERR_NULL_POINTER;
  if (!(p > 0.0 && p < 1.0)) return P2B_ERR_BAD_CONFIG;
  *epsilon = p2b::epsilon_per_report(p);
  return P2B_OK;
}

p2b_status p2b_agent_encode(const p2b_agent* agent, const float* x, size_t len, uint32_t* code) {
  P2B_RESOLVE(agent);
  return out(ag->encode(x, len, code));
}

p2b_status p2b_agent_centroid(const p2b_agent* agent, uint32_t code, float* o, size_t len) {
  P2B_RESOLVE(agent);
  return out(ag->centroid(code, o, len));
}

p2b_status p2b_agent_import(p2b_agent* agent, const double* a, const double* b, uint32_t n_actions,
                            uint32_t dim, uint32_t form) {
  P2B_RESOLVE(agent);
  if (form > P2B_STATS_CHOLESKY) return P2B_ERR_BAD_CONFIG;
  return out(ag->import_stats(a, b, n_actions, dim, static_cast<p2b::StatsForm>(form)));
}

p2b_status p2b_agent_export(const p2b_agent* agent, double* a, double* b, uint32_t n_actions,
                            uint32_t dim) {
  P2B_RESOLVE(agent);
  return out(ag->export_stats(a, b, n_actions, dim));
}

p2b_status p2b_agent_apply_model(p2b_agent* agent, const uint8_t* bundle, size_t len) {
  P2B_RESOLVE(agent);
  return out(ag->apply_model(bundle, len));
}

p2b_status p2b_agent_apply_model_at(p2b_agent* agent, const uint8_t* bundle, size_t len,
                                    uint64_t now_unix) {
  P2B_RESOLVE(agent);
  return out(ag->apply_model_at(bundle, len, now_unix));
}

p2b_status p2b_agent_model_version_of(const p2b_agent* agent, uint32_t kind, uint64_t* version) {
  P2B_RESOLVE(agent);
  return out(ag->model_version_of(kind, version));
}

p2b_status p2b_agent_model_version(const p2b_agent* agent, uint64_t* version) {
  P2B_RESOLVE(agent);
  if (version == nullptr) return P2B_ERR_NULL_POINTER;
  *version = ag->model_version();
  return P2B_OK;
}

p2b_status p2b_agent_apply_key_list(p2b_agent* agent, const uint8_t* list, size_t len,
                                    uint64_t now_unix) {
  P2B_RESOLVE(agent);
  return out(ag->apply_key_list(list, len, now_unix));
}

p2b_status p2b_agent_key_list_version(const p2b_agent* agent, uint64_t* version) {
  P2B_RESOLVE(agent);
  if (version == nullptr) return P2B_ERR_NULL_POINTER;
  *version = ag->key_list_version();
  return P2B_OK;
}

p2b_status p2b_agent_envelope_key_accepted(const p2b_agent* agent, const uint8_t* envelope,
                                           size_t len) {
  P2B_RESOLVE(agent);
  return out(ag->envelope_key_accepted(envelope, len));
}

p2b_status p2b_codebook_parse(const uint8_t* file, size_t len, float* centroids, size_t cap,
                              p2b_codebook_info* info) {
  return out(p2b::parse_codebook(builtin_hash_only(), file, len, centroids, cap,
                                 reinterpret_cast<p2b::CodebookInfo*>(info)));
}

p2b_status p2b_agent_save_size(const p2b_agent* agent, size_t* bytes) {
  P2B_RESOLVE(agent);
  return out(ag->saved_size(bytes));
}

p2b_status p2b_agent_save(const p2b_agent* agent, const uint8_t* key, void* buf, size_t cap,
                          size_t* written) {
  P2B_RESOLVE(agent);
  return out(ag->save(key, buf, cap, written));
}

p2b_status p2b_agent_restore(p2b_agent* agent, const uint8_t* key, const void* buf, size_t len) {
  P2B_RESOLVE(agent);
  return out(ag->restore(key, buf, len));
}

p2b_status p2b_agent_save_encrypted_size(const p2b_agent* agent, size_t* bytes) {
  P2B_RESOLVE(agent);
  return out(ag->encrypted_size(bytes));
}

p2b_status p2b_agent_save_encrypted(const p2b_agent* agent, const uint8_t* key, void* buf,
                                    size_t cap, size_t* written) {
  P2B_RESOLVE(agent);
  return out(ag->save_encrypted(key, buf, cap, written));
}

p2b_status p2b_agent_restore_encrypted(p2b_agent* agent, const uint8_t* key, uint8_t* buf,
                                       size_t len) {
  P2B_RESOLVE(agent);
  return out(ag->restore_encrypted(key, buf, len));
}

}  // extern "C"
