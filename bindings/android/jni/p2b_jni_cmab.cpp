// JNI shim behind org.p2b.P2BCmab: the P-FCB procurement agent (p2b_cmab_*).
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "jni_support.hpp"
#include "p2b.h"

#ifdef P2B_JNI_CHECK_HEADERS
#include "org_p2b_P2BCmab.h"
#endif

namespace {

using p2b_jni::config_arrays;
using p2b_jni::Pinned;
using p2b_jni::put;
using p2b_jni::restore_state;
using p2b_jni::ret;
using p2b_jni::save_state;

// Index layout of the config arrays; mirrors U_* and F_* in P2BCmab.java.
enum UField {
  kExploreRounds,
  kHorizon,
  kSchedule,
  kWindowStart,
  kWindowStop,
  kLogBase,
  kPublicMaxCapacity,
  kAgents,
  kMaxPeers,
  kRngMode,
  kSeed,
  kU
};
enum FField {
  kRho,
  kAlpha,
  kMargin,
  kUcbScale,
  kEpsilon,
  kDelta,
  kDeltaTarget,
  kOmega1,
  kOmega2,
  kF
};
// The eleven figures of p2b_cmab_privacy after `releases`, in P2BCmab.Privacy's order.
constexpr jsize kPrivacyFigures = 11;

p2b_cmab* agent_of(jlong handle) {
  return p2b_jni::handle_to<p2b_cmab>(handle);
}

// Costs and capacities are copied here: the C API copies them at init only.
struct JavaConfig {
  p2b_cmab_config cfg{};
  double cost[P2B_CMAB_MAX_PRODUCERS] = {};
  uint32_t capacity[P2B_CMAB_MAX_PRODUCERS] = {};
};

bool fits_u32(jlong v) {
  return v >= 0 && v <= static_cast<jlong>(UINT32_MAX);
}

p2b_status read_config(JNIEnv* env, jlongArray u, jdoubleArray f, jdoubleArray cost,
                       jintArray capacity, JavaConfig* out) {
  if (cost == nullptr || capacity == nullptr) return P2B_ERR_NULL_POINTER;
  const p2b_status arrays = config_arrays(env, u, kU, f, kF, P2B_ERR_BAD_CONFIG);
  if (arrays != P2B_OK) return arrays;
  const jsize m = env->GetArrayLength(cost);
  if (m > static_cast<jsize>(P2B_CMAB_MAX_PRODUCERS) || env->GetArrayLength(capacity) != m) {
    return P2B_ERR_BAD_CONFIG;
  }
  jlong uv[kU];
  jdouble fv[kF];
  jint caps[P2B_CMAB_MAX_PRODUCERS];
  env->GetLongArrayRegion(u, 0, kU, uv);
  env->GetDoubleArrayRegion(f, 0, kF, fv);
  env->GetDoubleArrayRegion(cost, 0, m, out->cost);
  env->GetIntArrayRegion(capacity, 0, m, caps);
  for (const UField i :
       {kExploreRounds, kSchedule, kLogBase, kPublicMaxCapacity, kAgents, kMaxPeers, kRngMode}) {
    if (!fits_u32(uv[i])) return P2B_ERR_BAD_CONFIG;
  }
  p2b_cmab_config& c = out->cfg;
  const p2b_status defaults = p2b_cmab_config_default(&c);
  if (defaults != P2B_OK) return defaults;
  for (jsize i = 0; i < m; ++i) {
    if (caps[i] < 0) return P2B_ERR_BAD_CONFIG;
    out->capacity[i] = static_cast<uint32_t>(caps[i]);
  }
  c.producers = static_cast<uint32_t>(m);
  c.cost = out->cost;
  c.capacity = out->capacity;
  c.explore_rounds = static_cast<uint32_t>(uv[kExploreRounds]);
  c.horizon = static_cast<uint64_t>(uv[kHorizon]);
  c.schedule = static_cast<uint32_t>(uv[kSchedule]);
  c.window_start = static_cast<uint64_t>(uv[kWindowStart]);
  c.window_stop = static_cast<uint64_t>(uv[kWindowStop]);
  c.log_base = static_cast<uint32_t>(uv[kLogBase]);
  c.public_max_capacity = static_cast<uint32_t>(uv[kPublicMaxCapacity]);
  c.agents = static_cast<uint32_t>(uv[kAgents]);
  c.max_peers = static_cast<uint32_t>(uv[kMaxPeers]);
  c.rng_mode = static_cast<uint32_t>(uv[kRngMode]);
  c.seed = static_cast<uint64_t>(uv[kSeed]);
  c.rho = fv[kRho];
  c.alpha = fv[kAlpha];
  c.quality_margin = fv[kMargin];
  c.ucb_scale = fv[kUcbScale];
  c.epsilon = fv[kEpsilon];
  c.delta = fv[kDelta];
  c.delta_target = fv[kDeltaTarget];
  c.omega1 = fv[kOmega1];
  c.omega2 = fv[kOmega2];
  return P2B_OK;
}

}  // namespace

extern "C" {

JNIEXPORT jint JNICALL Java_org_p2b_P2BCmab_nativeDefaults(JNIEnv* env, jclass /*cls*/,
                                                           jlongArray u, jdoubleArray f) {
  const p2b_status arrays = config_arrays(env, u, kU, f, kF, P2B_ERR_BUFFER_TOO_SMALL);
  if (arrays != P2B_OK) return ret(arrays);
  p2b_cmab_config c;
  const p2b_status s = p2b_cmab_config_default(&c);
  if (s != P2B_OK) return ret(s);
  const jlong uv[kU] = {c.explore_rounds,
                        static_cast<jlong>(c.horizon),
                        c.schedule,
                        static_cast<jlong>(c.window_start),
                        static_cast<jlong>(c.window_stop),
                        c.log_base,
                        c.public_max_capacity,
                        c.agents,
                        c.max_peers,
                        c.rng_mode,
                        static_cast<jlong>(c.seed)};
  const jdouble fv[kF] = {c.rho,   c.alpha,        c.quality_margin, c.ucb_scale, c.epsilon,
                          c.delta, c.delta_target, c.omega1,         c.omega2};
  env->SetLongArrayRegion(u, 0, kU, uv);
  env->SetDoubleArrayRegion(f, 0, kF, fv);
  return ret(P2B_OK);
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BCmab_nativeFootprint(JNIEnv* env, jclass /*cls*/,
                                                            jlongArray u, jdoubleArray f,
                                                            jdoubleArray cost, jintArray capacity,
                                                            jlongArray out) {
  JavaConfig jc;
  p2b_status s = read_config(env, u, f, cost, capacity, &jc);
  size_t bytes = 0;
  if (s == P2B_OK) s = p2b_cmab_footprint(&jc.cfg, &bytes);
  return put(env, out, p2b_jni::buffer_bytes(bytes), 0, 1, s);
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BCmab_nativeInit(JNIEnv* env, jclass /*cls*/, jobject arena,
                                                       jlongArray u, jdoubleArray f,
                                                       jdoubleArray cost, jintArray capacity,
                                                       jlongArray out) {
  JavaConfig jc;
  p2b_status s = read_config(env, u, f, cost, capacity, &jc);
  p2b_jni::Arena mem;
  if (s == P2B_OK) s = p2b_jni::arena_of(env, arena, &mem);
  p2b_cmab* agent = nullptr;
  if (s == P2B_OK) s = p2b_cmab_init(mem.base, mem.len, &jc.cfg, &agent);
  return put(env, out, p2b_jni::to_handle(agent), 0, 1, s);
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BCmab_nativeDecide(JNIEnv* env, jclass /*cls*/, jlong handle,
                                                         jintArray units) {
  const Pinned out(env, units, true);
  if (out.failed()) return ret(P2B_ERR_NULL_POINTER);
  static_assert(sizeof(jint) == sizeof(uint32_t), "units are written as uint32_t");
  return ret(p2b_cmab_decide(agent_of(handle), static_cast<uint32_t*>(out.data()), out.size()));
}

// Negative counts are out of range: the C API sees them as huge and refuses them.
JNIEXPORT jint JNICALL Java_org_p2b_P2BCmab_nativeObserve(JNIEnv* env, jclass /*cls*/, jlong handle,
                                                          jintArray good) {
  const Pinned in(env, good, false);
  if (in.failed()) return ret(P2B_ERR_NULL_POINTER);
  return ret(
      p2b_cmab_observe(agent_of(handle), static_cast<const uint32_t*>(in.data()), in.size()));
}

JNIEXPORT jlong JNICALL Java_org_p2b_P2BCmab_nativeShareSize(JNIEnv* /*env*/, jclass /*cls*/,
                                                             jint producers) {
  if (producers < 0) return 0;
  return static_cast<jlong>(p2b_cmab_share_size(static_cast<uint32_t>(producers)));
}

// out[0]: the share's length; informational statuses come back with `out` untouched.
JNIEXPORT jint JNICALL Java_org_p2b_P2BCmab_nativePollShare(JNIEnv* env, jclass /*cls*/,
                                                            jlong handle, jbyteArray buf,
                                                            jlongArray out) {
  if (out == nullptr || env->GetArrayLength(out) < 1) return ret(P2B_ERR_NULL_POINTER);
  size_t written = 0;
  p2b_status s = P2B_OK;
  {
    const Pinned share(env, buf, true);
    if (share.failed()) return ret(P2B_ERR_NULL_POINTER);
    s = p2b_cmab_poll_share(agent_of(handle), share.data(), share.size(), &written);
  }
  if (s != P2B_OK) return ret(s);
  return put(env, out, static_cast<jlong>(written), 0, 1, s);
}

// out[0]: producers accepted, out[1]: producers rejected.
JNIEXPORT jint JNICALL Java_org_p2b_P2BCmab_nativeApplyShare(JNIEnv* env, jclass /*cls*/,
                                                             jlong handle, jint sender,
                                                             jbyteArray share, jlongArray out) {
  if (sender < 0) return ret(P2B_ERR_ACTION_OUT_OF_RANGE);
  uint32_t accepted = 0;
  uint32_t rejected = 0;
  p2b_status s = P2B_OK;
  {
    const Pinned in(env, share, false);
    if (in.failed()) return ret(P2B_ERR_NULL_POINTER);
    s = p2b_cmab_apply_share(agent_of(handle), static_cast<uint32_t>(sender), in.data(), in.size(),
                             &accepted, &rejected);
  }
  return put(env, out, static_cast<jlong>(accepted), static_cast<jlong>(rejected), 2, s);
}

// f: paper eps, paper delta, basic eps, basic delta, element, sequential,
// vector eps, delta target, element, sequential, vector mu; out[0]: releases.
JNIEXPORT jint JNICALL Java_org_p2b_P2BCmab_nativePrivacySpent(JNIEnv* env, jclass /*cls*/,
                                                               jlong handle, jdoubleArray f,
                                                               jlongArray out) {
  if (f == nullptr || env->GetArrayLength(f) < kPrivacyFigures) return ret(P2B_ERR_NULL_POINTER);
  p2b_cmab_privacy p{};
  const p2b_status s = p2b_cmab_privacy_spent(agent_of(handle), &p);
  if (s != P2B_OK) return ret(s);
  const jdouble v[kPrivacyFigures] = {p.paper_epsilon,  p.paper_delta,     p.basic_epsilon,
                                      p.basic_delta,    p.element_epsilon, p.sequential_epsilon,
                                      p.vector_epsilon, p.delta_target,    p.element_mu,
                                      p.sequential_mu,  p.vector_mu};
  env->SetDoubleArrayRegion(f, 0, kPrivacyFigures, v);
  return put(env, out, static_cast<jlong>(p.releases), 0, 1, s);
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BCmab_nativeEstimates(JNIEnv* env, jclass /*cls*/,
                                                            jlong handle, jdoubleArray units_seen,
                                                            jdoubleArray quality) {
  Pinned seen(env, units_seen, true, Pinned::Defer);
  Pinned q(env, quality, true, Pinned::Defer);
  seen.pin();
  q.pin();
  if (seen.failed() || q.failed()) return ret(P2B_ERR_NULL_POINTER);
  // Both arrays come from the same m; the shorter one is what the C API checks.
  const size_t m = seen.data() == nullptr ? q.size()
                   : q.data() == nullptr  ? seen.size()
                                          : (seen.size() < q.size() ? seen.size() : q.size());
  return ret(p2b_cmab_estimates(agent_of(handle), static_cast<double*>(seen.data()),
                                static_cast<double*>(q.data()), m));
}

// out[0]: the saved state's size.
JNIEXPORT jint JNICALL Java_org_p2b_P2BCmab_nativeSaveSize(JNIEnv* env, jclass /*cls*/,
                                                           jlong handle, jlongArray out) {
  size_t bytes = 0;
  const p2b_status s = p2b_cmab_save_size(agent_of(handle), &bytes);
  return put(env, out, static_cast<jlong>(bytes), 0, 1, s);
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BCmab_nativeSave(JNIEnv* env, jclass /*cls*/, jlong handle,
                                                       jbyteArray state_key, jbyteArray state,
                                                       jlongArray out) {
  return save_state(env, state_key, state, out,
                    [&](const uint8_t* key, void* buf, size_t cap, size_t* written) {
                      return p2b_cmab_save(agent_of(handle), key, buf, cap, written);
                    });
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BCmab_nativeRestore(JNIEnv* env, jclass /*cls*/, jlong handle,
                                                          jbyteArray state_key, jbyteArray state) {
  return restore_state(env, state_key, state, false,
                       [&](const uint8_t* key, const void* buf, size_t len) {
                         return p2b_cmab_restore(agent_of(handle), key, buf, len);
                       });
}

}  // extern "C"
