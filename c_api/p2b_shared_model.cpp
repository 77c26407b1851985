// The C API of the shared-parameter model: checked translation onto
// p2b::SharedModel, as p2b.cpp does for the agent. It adds no state.
#include <cmath>

#include "../ports/platform.hpp"
#include "c_api_support.hpp"
#include "p2b.h"
#include "p2b/shared_model.hpp"

namespace {

using p2b::SharedModel;
using p2b::Status;
using p2b::capi::out;
using p2b::capi::resolve;

static_assert(P2B_SHARED_MAX_DIM == p2b::kSharedMaxDim, "limit macro out of sync");
static_assert(P2B_SHARED_MAX_ITEMS == p2b::kSharedMaxItems, "limit macro out of sync");
static_assert(P2B_PRECISION_F64 == static_cast<int>(p2b::Precision::f64), "precision out of sync");

Status to_core(const p2b_shared_config* c, p2b::SharedConfig* cfg) {
  if (c->policy > P2B_POLICY_LINTS || c->rng_mode > P2B_RNG_SEEDED ||
      c->precision > P2B_PRECISION_F64) {
    return Status::bad_config;
  }
  cfg->dim = c->dim;
  cfg->max_items = c->max_items;
  cfg->policy = static_cast<p2b::Policy>(c->policy);
  cfg->alpha = c->alpha;
  cfg->ridge_lambda = c->ridge_lambda;
  cfg->ts_scale = c->ts_scale;
  cfg->tie_rel_tol = c->tie_rel_tol;
  cfg->pending_capacity = c->pending_capacity;
  cfg->precision = static_cast<p2b::Precision>(c->precision);
  const Status random = p2b::capi::random_to_core(*c, cfg);
  if (random != Status::ok) return random;
  // Crypto only for a model that checks warm starts: a model without a key
  // needs none, and P2B_PORT=none has no built-in one to find.
  if (c->crypto != nullptr) {
    cfg->crypto = p2b::capi::crypto_to_core(*c->crypto);
  } else if (c->analyzer_verify_key != nullptr && !p2b::port::default_crypto(&cfg->crypto)) {
    return Status::bad_config;  // no built-in crypto on this port
  }
  cfg->analyzer_verify_key = c->analyzer_verify_key;
  cfg->min_model_version = c->min_model_version;
  return Status::ok;
}

}  // namespace

extern "C" {

uint32_t p2b_shared_max_dim(void) {
  return P2B_SHARED_MAX_DIM;
}
uint32_t p2b_shared_max_items(void) {
  return P2B_SHARED_MAX_ITEMS;
}

p2b_status p2b_shared_config_default(p2b_shared_config* cfg) {
  if (cfg == nullptr) return P2B_ERR_NULL_POINTER;
  const p2b::SharedConfig d;
  *cfg = p2b_shared_config{};
  cfg->policy = P2B_POLICY_LINUCB;
  cfg->alpha = d.alpha;
  cfg->ridge_lambda = d.ridge_lambda;
  cfg->ts_scale = d.ts_scale;
  cfg->tie_rel_tol = d.tie_rel_tol;
  cfg->pending_capacity = d.pending_capacity;
  cfg->precision = P2B_PRECISION_F64;
  cfg->rng_mode = P2B_RNG_SYSTEM;
  return P2B_OK;
}

p2b_status p2b_shared_model_footprint(const p2b_shared_config* cfg, size_t* bytes) {
  if (cfg == nullptr || bytes == nullptr) return P2B_ERR_NULL_POINTER;
  p2b::SharedConfig core;
  const Status s = to_core(cfg, &core);
  if (s != Status::ok) return out(s);
  return out(SharedModel::footprint(core, bytes));
}

p2b_status p2b_shared_model_init(void* mem, size_t len, const p2b_shared_config* cfg,
                                 p2b_shared_model** model) {
  if (mem == nullptr || cfg == nullptr || model == nullptr) return P2B_ERR_NULL_POINTER;
  p2b::SharedConfig core;
  Status s = to_core(cfg, &core);
  if (s != Status::ok) return out(s);
  SharedModel* m = nullptr;
  s = SharedModel::init(mem, len, core, &m);
  if (s == Status::ok) *model = reinterpret_cast<p2b_shared_model*>(m);
  return out(s);
}

p2b_status p2b_shared_model_decide(p2b_shared_model* model, const double* items, size_t n_items,
                                   size_t dim, uint32_t* item, uint64_t* decision_id) {
  SharedModel* m = nullptr;
  const Status s = resolve(model, &m);
  return out(s != Status::ok ? s : m->decide(items, n_items, dim, item, decision_id));
}

p2b_status p2b_shared_model_reward(p2b_shared_model* model, uint64_t decision_id, double reward) {
  SharedModel* m = nullptr;
  const Status s = resolve(model, &m);
  return out(s != Status::ok ? s : m->reward(decision_id, reward));
}

p2b_status p2b_shared_model_learn(p2b_shared_model* model, const double* context, size_t dim,
                                  double reward) {
  SharedModel* m = nullptr;
  const Status s = resolve(model, &m);
  return out(s != Status::ok ? s : m->learn(context, dim, reward));
}

p2b_status p2b_shared_model_scores(const p2b_shared_model* model, const double* items,
                                   size_t n_items, size_t dim, double* mean, double* width,
                                   double* total) {
  SharedModel* m = nullptr;
  const Status s = resolve(model, &m);
  return out(s != Status::ok ? s : m->scores(items, n_items, dim, mean, width, total));
}

p2b_status p2b_shared_model_theta(const p2b_shared_model* model, double* theta, size_t dim) {
  SharedModel* m = nullptr;
  const Status s = resolve(model, &m);
  return out(s != Status::ok ? s : m->theta(theta, dim));
}

p2b_status p2b_shared_model_apply_model(p2b_shared_model* model, const uint8_t* bundle,
                                        size_t len) {
  SharedModel* m = nullptr;
  const Status s = resolve(model, &m);
  return out(s != Status::ok ? s : m->apply_model(bundle, len));
}

p2b_status p2b_shared_model_apply_model_at(p2b_shared_model* model, const uint8_t* bundle,
                                           size_t len, uint64_t now_unix) {
  SharedModel* m = nullptr;
  const Status s = resolve(model, &m);
  return out(s != Status::ok ? s : m->apply_model_at(bundle, len, now_unix));
}

p2b_status p2b_shared_model_model_version(const p2b_shared_model* model, uint64_t* version) {
  SharedModel* m = nullptr;
  const Status s = resolve(model, &m);
  if (s != Status::ok) return out(s);
  if (version == nullptr) return P2B_ERR_NULL_POINTER;
  *version = m->model_version();
  return P2B_OK;
}

p2b_status p2b_shared_model_save_size(const p2b_shared_model* model, size_t* bytes) {
  SharedModel* m = nullptr;
  const Status s = resolve(model, &m);
  return out(s != Status::ok ? s : m->saved_size(bytes));
}

p2b_status p2b_shared_model_save(const p2b_shared_model* model, const uint8_t* key, void* buf,
                                 size_t cap, size_t* written) {
  SharedModel* m = nullptr;
  const Status s = resolve(model, &m);
  return out(s != Status::ok ? s : m->save(key, buf, cap, written));
}

p2b_status p2b_shared_model_restore(p2b_shared_model* model, const uint8_t* key, const void* buf,
                                    size_t len) {
  SharedModel* m = nullptr;
  const Status s = resolve(model, &m);
  return out(s != Status::ok ? s : m->restore(key, buf, len));
}

}  // extern "C"
