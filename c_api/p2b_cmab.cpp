// The C API of the P-FCB agent: checked translation onto p2b::CmabAgent, as
// p2b_shared_model.cpp does for the shared model. It adds no state.
#include "c_api_support.hpp"
#include "p2b.h"
#include "p2b/cmab.hpp"

namespace {

using p2b::CmabAgent;
using p2b::Status;
using p2b::capi::out;
using p2b::capi::resolve;

static_assert(P2B_CMAB_MAX_PRODUCERS == p2b::kCmabMaxProducers, "limit macro out of sync");
static_assert(P2B_CMAB_MAX_PEERS == p2b::kCmabMaxPeers, "limit macro out of sync");
static_assert(P2B_CMAB_MAX_CAPACITY == p2b::kCmabMaxCapacity, "limit macro out of sync");
static_assert(P2B_CMAB_SCHEDULE_EVERY_ROUND == static_cast<int>(p2b::CmabSchedule::every_round),
              "schedule out of sync");
static_assert(P2B_CMAB_LOG_E == static_cast<int>(p2b::CmabLogBase::natural), "log out of sync");

Status to_core(const p2b_cmab_config* c, p2b::CmabConfig* cfg) {
  if (c->schedule > P2B_CMAB_SCHEDULE_EVERY_ROUND || c->log_base > P2B_CMAB_LOG_E ||
      c->rng_mode > P2B_RNG_SEEDED) {
    return Status::bad_config;
  }
  cfg->producers = c->producers;
  cfg->cost = c->cost;
  cfg->capacity = c->capacity;
  cfg->rho = c->rho;
  cfg->alpha = c->alpha;
  cfg->quality_margin = c->quality_margin;
  cfg->explore_rounds = c->explore_rounds;
  cfg->ucb_scale = c->ucb_scale;
  cfg->horizon = c->horizon;
  cfg->schedule = static_cast<p2b::CmabSchedule>(c->schedule);
  cfg->window_start = c->window_start;
  cfg->window_stop = c->window_stop;
  cfg->log_base = static_cast<p2b::CmabLogBase>(c->log_base);
  cfg->epsilon = c->epsilon;
  cfg->delta = c->delta;
  cfg->delta_target = c->delta_target;
  cfg->public_max_capacity = c->public_max_capacity;
  cfg->omega1 = c->omega1;
  cfg->omega2 = c->omega2;
  cfg->agents = c->agents;
  cfg->max_peers = c->max_peers;
  const Status random = p2b::capi::random_to_core(*c, cfg);
  if (random != Status::ok) return random;
  return Status::ok;
}

}  // namespace

extern "C" {

p2b_status p2b_cmab_config_default(p2b_cmab_config* cfg) {
  if (cfg == nullptr) return P2B_ERR_NULL_POINTER;
  const p2b::CmabConfig d;
  *cfg = p2b_cmab_config{};
  cfg->rho = d.rho;
  cfg->alpha = d.alpha;
  cfg->quality_margin = d.quality_margin;
  cfg->explore_rounds = d.explore_rounds;
  cfg->ucb_scale = d.ucb_scale;
  cfg->horizon = d.horizon;
  cfg->schedule = static_cast<uint32_t>(d.schedule);
  cfg->window_start = d.window_start;
  cfg->window_stop = d.window_stop;
  cfg->log_base = static_cast<uint32_t>(d.log_base);
  cfg->epsilon = d.epsilon;
  cfg->delta = d.delta;
  cfg->delta_target = d.delta_target;
  cfg->public_max_capacity = d.public_max_capacity;
  cfg->omega1 = d.omega1;
  cfg->omega2 = d.omega2;
  cfg->agents = d.agents;
  cfg->max_peers = d.max_peers;
  cfg->rng_mode = P2B_RNG_SYSTEM;
  return P2B_OK;
}

p2b_status p2b_cmab_footprint(const p2b_cmab_config* cfg, size_t* bytes) {
  if (cfg == nullptr || bytes == nullptr) return P2B_ERR_NULL_POINTER;
  p2b::CmabConfig c;
  const Status s = to_core(cfg, &c);
  if (s != Status::ok) return out(s);
  return out(CmabAgent::footprint(c, bytes));
}

p2b_status p2b_cmab_init(void* mem, size_t len, const p2b_cmab_config* cfg, p2b_cmab** agent) {
  if (mem == nullptr || cfg == nullptr || agent == nullptr) return P2B_ERR_NULL_POINTER;
  p2b::CmabConfig c;
  const Status s = to_core(cfg, &c);
  if (s != Status::ok) return out(s);
  CmabAgent* a = nullptr;
  const Status st = CmabAgent::init(mem, len, c, &a);
  if (st == Status::ok) *agent = reinterpret_cast<p2b_cmab*>(a);
  return out(st);
}

p2b_status p2b_cmab_decide(p2b_cmab* agent, uint32_t* units, size_t m) {
  CmabAgent* a = nullptr;
  const Status s = resolve(agent, &a);
  return out(s != Status::ok ? s : a->decide(units, m));
}

p2b_status p2b_cmab_observe(p2b_cmab* agent, const uint32_t* good, size_t m) {
  CmabAgent* a = nullptr;
  const Status s = resolve(agent, &a);
  return out(s != Status::ok ? s : a->observe(good, m));
}

size_t p2b_cmab_share_size(uint32_t producers) {
  return p2b::cmab_share_encoded_size(producers);
}

p2b_status p2b_cmab_poll_share(p2b_cmab* agent, void* buf, size_t cap, size_t* written) {
  CmabAgent* a = nullptr;
  const Status s = resolve(agent, &a);
  return out(s != Status::ok ? s : a->poll_share_bytes(static_cast<uint8_t*>(buf), cap, written));
}

p2b_status p2b_cmab_apply_share(p2b_cmab* agent, uint32_t sender, const void* buf, size_t len,
                                uint32_t* accepted, uint32_t* rejected) {
  CmabAgent* a = nullptr;
  Status s = resolve(agent, &a);
  if (s != Status::ok) return out(s);
  p2b::CmabApplyResult r;
  s = a->apply_share_bytes(sender, static_cast<const uint8_t*>(buf), len, &r);
  if (s == Status::ok) {
    if (accepted != nullptr) *accepted = r.accepted;
    if (rejected != nullptr) *rejected = r.rejected;
  }
  return out(s);
}

p2b_status p2b_cmab_privacy_spent(const p2b_cmab* agent, p2b_cmab_privacy* spent) {
  CmabAgent* a = nullptr;
  Status s = resolve(agent, &a);
  if (s != Status::ok) return out(s);
  if (spent == nullptr) return P2B_ERR_NULL_POINTER;
  p2b::CmabPrivacy p;
  s = a->privacy(&p);
  if (s != Status::ok) return out(s);
  spent->releases = p.releases;
  spent->paper_epsilon = p.paper_epsilon;
  spent->paper_delta = p.paper_delta;
  spent->basic_epsilon = p.basic_epsilon;
  spent->basic_delta = p.basic_delta;
  spent->element_epsilon = p.element_epsilon;
  spent->sequential_epsilon = p.sequential_epsilon;
  spent->vector_epsilon = p.vector_epsilon;
  spent->delta_target = p.delta_target;
  spent->element_mu = p.element_mu;
  spent->sequential_mu = p.sequential_mu;
  spent->vector_mu = p.vector_mu;
  return P2B_OK;
}

p2b_status p2b_cmab_save_size(const p2b_cmab* agent, size_t* bytes) {
  CmabAgent* a = nullptr;
  const Status s = resolve(agent, &a);
  return out(s != Status::ok ? s : a->saved_size(bytes));
}

p2b_status p2b_cmab_save(const p2b_cmab* agent, const uint8_t* key, void* buf, size_t cap,
                         size_t* written) {
  CmabAgent* a = nullptr;
  const Status s = resolve(agent, &a);
  return out(s != Status::ok ? s : a->save(key, buf, cap, written));
}

p2b_status p2b_cmab_restore(p2b_cmab* agent, const uint8_t* key, const void* buf, size_t len) {
  CmabAgent* a = nullptr;
  const Status s = resolve(agent, &a);
  return out(s != Status::ok ? s : a->restore(key, buf, len));
}

p2b_status p2b_cmab_estimates(const p2b_cmab* agent, double* units_seen, double* quality,
                              size_t m) {
  CmabAgent* a = nullptr;
  const Status s = resolve(agent, &a);
  return out(s != Status::ok ? s : a->estimates(units_seen, quality, m));
}

}  // extern "C"
