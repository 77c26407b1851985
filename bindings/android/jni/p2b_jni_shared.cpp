// JNI shim behind org.p2b.P2BSharedModel: the shared-parameter model
// (p2b_shared_model_*), one ridge model over per-item contexts.
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "jni_support.hpp"
#include "p2b.h"

#ifdef P2B_JNI_CHECK_HEADERS
#include "org_p2b_P2BSharedModel.h"
#endif

namespace {

using p2b_jni::config_arrays;
using p2b_jni::Pinned;
using p2b_jni::put;
using p2b_jni::restore_state;
using p2b_jni::ret;
using p2b_jni::save_state;

// Index layout of the config arrays; mirrors U_* and F_* in P2BSharedModel.java.
enum UField { kDim, kMaxItems, kPolicy, kPending, kPrecision, kRngMode, kSeed, kMinVersion, kU };
enum FField { kAlpha, kRidge, kTsScale, kTieRelTol, kF };

p2b_shared_model* model_of(jlong handle) {
  return p2b_jni::handle_to<p2b_shared_model>(handle);
}

struct JavaConfig {
  p2b_shared_config cfg{};
  uint8_t key[P2B_KEY_BYTES] = {};
};

p2b_status read_config(JNIEnv* env, jlongArray u, jdoubleArray f, jbyteArray key, JavaConfig* out) {
  const p2b_status arrays = config_arrays(env, u, kU, f, kF, P2B_ERR_BAD_CONFIG);
  if (arrays != P2B_OK) return arrays;
  jlong uv[kU];
  jdouble fv[kF];
  env->GetLongArrayRegion(u, 0, kU, uv);
  env->GetDoubleArrayRegion(f, 0, kF, fv);
  p2b_shared_config& c = out->cfg;
  const p2b_status defaults = p2b_shared_config_default(&c);
  if (defaults != P2B_OK) return defaults;
  for (const UField i : {kDim, kMaxItems, kPolicy, kPending, kPrecision, kRngMode}) {
    if (uv[i] < 0 || uv[i] > static_cast<jlong>(UINT32_MAX)) return P2B_ERR_BAD_CONFIG;
  }
  c.dim = static_cast<uint32_t>(uv[kDim]);
  c.max_items = static_cast<uint32_t>(uv[kMaxItems]);
  c.policy = static_cast<uint32_t>(uv[kPolicy]);
  c.pending_capacity = static_cast<uint32_t>(uv[kPending]);
  c.precision = static_cast<uint32_t>(uv[kPrecision]);
  c.rng_mode = static_cast<uint32_t>(uv[kRngMode]);
  c.seed = static_cast<uint64_t>(uv[kSeed]);
  c.min_model_version = static_cast<uint64_t>(uv[kMinVersion]);
  c.alpha = fv[kAlpha];
  c.ridge_lambda = fv[kRidge];
  c.ts_scale = fv[kTsScale];
  c.tie_rel_tol = fv[kTieRelTol];
  // Optional here: without a key every warm start is refused.
  return p2b_jni::read_fixed_bytes(env, key, out->key, P2B_KEY_BYTES, &c.analyzer_verify_key);
}

// n_items from a row-major array of `dim`-value rows.
p2b_status rows_of(const Pinned& items, jint dim, size_t* n_items) {
  if (items.failed() || items.data() == nullptr) return P2B_ERR_NULL_POINTER;
  if (dim <= 0 || items.size() % static_cast<size_t>(dim) != 0) {
    return P2B_ERR_DIMENSION_MISMATCH;
  }
  *n_items = items.size() / static_cast<size_t>(dim);
  return P2B_OK;
}

}  // namespace

extern "C" {

JNIEXPORT jint JNICALL Java_org_p2b_P2BSharedModel_nativeDefaults(JNIEnv* env, jclass /*cls*/,
                                                                  jlongArray u, jdoubleArray f) {
  const p2b_status arrays = config_arrays(env, u, kU, f, kF, P2B_ERR_BUFFER_TOO_SMALL);
  if (arrays != P2B_OK) return ret(arrays);
  p2b_shared_config c;
  const p2b_status s = p2b_shared_config_default(&c);
  if (s != P2B_OK) return ret(s);
  const jlong uv[kU] = {c.dim,
                        c.max_items,
                        c.policy,
                        c.pending_capacity,
                        c.precision,
                        c.rng_mode,
                        static_cast<jlong>(c.seed),
                        static_cast<jlong>(c.min_model_version)};
  const jdouble fv[kF] = {c.alpha, c.ridge_lambda, c.ts_scale, c.tie_rel_tol};
  env->SetLongArrayRegion(u, 0, kU, uv);
  env->SetDoubleArrayRegion(f, 0, kF, fv);
  return ret(P2B_OK);
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BSharedModel_nativeFootprint(JNIEnv* env, jclass /*cls*/,
                                                                   jlongArray u, jdoubleArray f,
                                                                   jbyteArray key, jlongArray out) {
  JavaConfig jc;
  p2b_status s = read_config(env, u, f, key, &jc);
  size_t bytes = 0;
  if (s == P2B_OK) s = p2b_shared_model_footprint(&jc.cfg, &bytes);
  return put(env, out, p2b_jni::buffer_bytes(bytes), 0, 1, s);
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BSharedModel_nativeInit(JNIEnv* env, jclass /*cls*/,
                                                              jobject arena, jlongArray u,
                                                              jdoubleArray f, jbyteArray key,
                                                              jlongArray out) {
  JavaConfig jc;
  p2b_status s = read_config(env, u, f, key, &jc);
  p2b_jni::Arena mem;
  if (s == P2B_OK) s = p2b_jni::arena_of(env, arena, &mem);
  p2b_shared_model* model = nullptr;
  if (s == P2B_OK) s = p2b_shared_model_init(mem.base, mem.len, &jc.cfg, &model);
  return put(env, out, p2b_jni::to_handle(model), 0, 1, s);
}

// out[0]: the chosen item, out[1]: the decision id.
JNIEXPORT jint JNICALL Java_org_p2b_P2BSharedModel_nativeDecide(JNIEnv* env, jclass /*cls*/,
                                                                jlong handle, jdoubleArray items,
                                                                jint dim, jlongArray out) {
  uint32_t item = 0;
  uint64_t id = 0;
  p2b_status s = P2B_OK;
  {
    const Pinned rows(env, items, false);
    size_t n = 0;
    s = rows_of(rows, dim, &n);
    if (s == P2B_OK) {
      s = p2b_shared_model_decide(model_of(handle), static_cast<const double*>(rows.data()), n,
                                  static_cast<size_t>(dim), &item, &id);
    }
  }
  return put(env, out, static_cast<jlong>(item), static_cast<jlong>(id), 2, s);
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BSharedModel_nativeReward(JNIEnv* /*env*/, jclass /*cls*/,
                                                                jlong handle, jlong decision_id,
                                                                jdouble reward) {
  return ret(p2b_shared_model_reward(model_of(handle), static_cast<uint64_t>(decision_id), reward));
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BSharedModel_nativeLearn(JNIEnv* env, jclass /*cls*/,
                                                               jlong handle, jdoubleArray context,
                                                               jdouble reward) {
  const Pinned x(env, context, false);
  if (x.failed()) return ret(P2B_ERR_NULL_POINTER);
  return ret(p2b_shared_model_learn(model_of(handle), static_cast<const double*>(x.data()),
                                    x.size(), reward));
}

// mean, width and total each receive n_items values (each may be null).
JNIEXPORT jint JNICALL Java_org_p2b_P2BSharedModel_nativeScores(JNIEnv* env, jclass /*cls*/,
                                                                jlong handle, jdoubleArray items,
                                                                jint dim, jdoubleArray mean,
                                                                jdoubleArray width,
                                                                jdoubleArray total) {
  Pinned rows(env, items, false, Pinned::Defer);
  Pinned m(env, mean, true, Pinned::Defer);
  Pinned w(env, width, true, Pinned::Defer);
  Pinned t(env, total, true, Pinned::Defer);
  rows.pin();
  m.pin();
  w.pin();
  t.pin();
  size_t n = 0;
  const p2b_status s = rows_of(rows, dim, &n);
  if (s != P2B_OK) return ret(s);
  if (m.failed() || w.failed() || t.failed()) return ret(P2B_ERR_NULL_POINTER);
  for (const Pinned* p : {&m, &w, &t}) {
    if (p->data() != nullptr && p->size() < n) return ret(P2B_ERR_BUFFER_TOO_SMALL);
  }
  return ret(p2b_shared_model_scores(model_of(handle), static_cast<const double*>(rows.data()), n,
                                     static_cast<size_t>(dim), static_cast<double*>(m.data()),
                                     static_cast<double*>(w.data()),
                                     static_cast<double*>(t.data())));
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BSharedModel_nativeTheta(JNIEnv* env, jclass /*cls*/,
                                                               jlong handle, jdoubleArray theta) {
  const Pinned out(env, theta, true);
  if (out.failed()) return ret(P2B_ERR_NULL_POINTER);
  return ret(
      p2b_shared_model_theta(model_of(handle), static_cast<double*>(out.data()), out.size()));
}

// now_unix < 0: no time known (p2b_shared_model_apply_model).
JNIEXPORT jint JNICALL Java_org_p2b_P2BSharedModel_nativeApplyModel(JNIEnv* env, jclass /*cls*/,
                                                                    jlong handle, jbyteArray bundle,
                                                                    jlong now_unix) {
  const Pinned b(env, bundle, false);
  if (b.failed()) return ret(P2B_ERR_NULL_POINTER);
  const auto* bytes = static_cast<const uint8_t*>(b.data());
  return ret(now_unix < 0 ? p2b_shared_model_apply_model(model_of(handle), bytes, b.size())
                          : p2b_shared_model_apply_model_at(model_of(handle), bytes, b.size(),
                                                            static_cast<uint64_t>(now_unix)));
}

// out[0]: the model version, out[1]: the saved state's size.
JNIEXPORT jint JNICALL Java_org_p2b_P2BSharedModel_nativeVersionAndSize(JNIEnv* env, jclass /*cls*/,
                                                                        jlong handle,
                                                                        jlongArray out) {
  uint64_t version = 0;
  size_t bytes = 0;
  p2b_status s = p2b_shared_model_model_version(model_of(handle), &version);
  if (s == P2B_OK) s = p2b_shared_model_save_size(model_of(handle), &bytes);
  return put(env, out, static_cast<jlong>(version), static_cast<jlong>(bytes), 2, s);
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BSharedModel_nativeSave(JNIEnv* env, jclass /*cls*/,
                                                              jlong handle, jbyteArray state_key,
                                                              jbyteArray state, jlongArray out) {
  return save_state(env, state_key, state, out,
                    [&](const uint8_t* key, void* buf, size_t cap, size_t* written) {
                      return p2b_shared_model_save(model_of(handle), key, buf, cap, written);
                    });
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BSharedModel_nativeRestore(JNIEnv* env, jclass /*cls*/,
                                                                 jlong handle, jbyteArray state_key,
                                                                 jbyteArray state) {
  return restore_state(env, state_key, state, false,
                       [&](const uint8_t* key, const void* buf, size_t len) {
                         return p2b_shared_model_restore(model_of(handle), key, buf, len);
                       });
}

}  // extern "C"
