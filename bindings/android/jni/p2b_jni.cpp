// JNI shim behind org.p2b.P2BAgent (bindings/android/java). Every entry point
// returns a p2b_status; the Java side turns errors into P2BException, so no
// Java exception is ever raised from here. Nothing here allocates: small
// inputs are copied to the stack, large ones (codebook, model, state,
// statistics) are pinned for the length of one call.
#include <jni.h>

#include <cstdint>
#include <cstring>

#include "jni_support.hpp"
#include "p2b.h"

#ifdef P2B_JNI_CHECK_HEADERS
// javac -h output: makes the compiler check every signature below against
// the native methods the Java class declares.
#include "org_p2b_P2BAgent.h"
#endif

namespace {

using p2b_jni::config_arrays;
using p2b_jni::Pinned;
using p2b_jni::put;
using p2b_jni::restore_state;
using p2b_jni::ret;
using p2b_jni::save_state;

// Index layout of the config arrays; mirrors the U_* and F_* constants in
// P2BAgent.java.
enum U32Field {
  kDim,
  kActions,
  kPolicy,
  kRoundDigits,
  kWindow,
  kPending,
  kOutbox,
  kRngMode,
  kMinModelVersionLo,
  kMinModelVersionHi,
  kAcceptBaseline,
  kU32
};
enum F64Field { kAlpha, kRidge, kTsScale, kParticipation, kNegRate, kEpsilonBudget, kF64 };

p2b_agent* agent_of(jlong handle) {
  return p2b_jni::handle_to<p2b_agent>(handle);
}

// A p2b_config assembled from the Java arrays. Keys are copied here because
// the C API borrows them for the duration of the call only.
struct JavaConfig {
  p2b_config cfg{};
  uint8_t keys[3][P2B_KEY_BYTES] = {};
};

// Fills the scalar fields from the two arrays.
p2b_status read_scalars(JNIEnv* env, jintArray u32, jdoubleArray f64, jlong seed, p2b_config* c) {
  const p2b_status arrays = config_arrays(env, u32, kU32, f64, kF64, P2B_ERR_BAD_CONFIG);
  if (arrays != P2B_OK) return arrays;
  jint u[kU32];
  jdouble f[kF64];
  env->GetIntArrayRegion(u32, 0, kU32, u);
  env->GetDoubleArrayRegion(f64, 0, kF64, f);
  const p2b_status defaults = p2b_config_default(c);
  if (defaults != P2B_OK) return defaults;
  c->dim = static_cast<uint32_t>(u[kDim]);
  c->n_actions = static_cast<uint32_t>(u[kActions]);
  c->policy = static_cast<uint32_t>(u[kPolicy]);
  c->round_digits = static_cast<uint32_t>(u[kRoundDigits]);
  c->window = static_cast<uint32_t>(u[kWindow]);
  c->pending_capacity = static_cast<uint32_t>(u[kPending]);
  c->outbox_capacity = static_cast<uint32_t>(u[kOutbox]);
  c->rng_mode = static_cast<uint32_t>(u[kRngMode]);
  c->accept_baseline_models = static_cast<uint32_t>(u[kAcceptBaseline]);
  c->seed = static_cast<uint64_t>(seed);
  c->min_model_version = static_cast<uint64_t>(static_cast<uint32_t>(u[kMinModelVersionLo])) |
                         static_cast<uint64_t>(static_cast<uint32_t>(u[kMinModelVersionHi])) << 32U;
  c->alpha = f[kAlpha];
  c->ridge_lambda = f[kRidge];
  c->ts_scale = f[kTsScale];
  c->participation = f[kParticipation];
  c->neg_rate = f[kNegRate];
  c->epsilon_budget = f[kEpsilonBudget];
  return P2B_OK;
}

// Fills everything but the codebook, which the caller pins last.
p2b_status read_config(JNIEnv* env, jintArray u32, jdoubleArray f64, jlong seed,
                       jbyteArray const keys[3], JavaConfig* out) {
  p2b_config& c = out->cfg;
  const p2b_status s = read_scalars(env, u32, f64, seed, &c);
  if (s != P2B_OK) return s;
  const uint8_t** slots[3] = {&c.shuffler_public_key, &c.analyzer_public_key,
                              &c.analyzer_verify_key};
  for (int i = 0; i < 3; ++i) {
    const p2b_status k =
        p2b_jni::read_fixed_bytes(env, keys[i], out->keys[i], P2B_KEY_BYTES, slots[i]);
    if (k != P2B_OK) return k;
  }
  return P2B_OK;
}

// Points cfg at the pinned codebook; n_codes follows from its length.
p2b_status attach_codebook(const Pinned& centroids, p2b_config* c) {
  if (centroids.failed()) return P2B_ERR_NULL_POINTER;
  if (centroids.data() == nullptr) return P2B_OK;  // the C API rejects the NULL codebook
  if (c->dim == 0 || centroids.size() % c->dim != 0) return P2B_ERR_DIMENSION_MISMATCH;
  c->centroids = static_cast<const float*>(centroids.data());
  c->n_codes = static_cast<uint32_t>(centroids.size() / c->dim);
  return P2B_OK;
}

// A context copied to the stack; longer than any agent's dim is a mismatch.
struct Context {
  float x[P2B_MAX_DIM] = {};
  size_t len = 0;
};

p2b_status read_context(JNIEnv* env, jfloatArray context, Context* out) {
  if (context == nullptr) return P2B_ERR_NULL_POINTER;
  const jsize len = env->GetArrayLength(context);
  if (len > static_cast<jsize>(P2B_MAX_DIM)) return P2B_ERR_DIMENSION_MISMATCH;
  env->GetFloatArrayRegion(context, 0, len, out->x);
  out->len = static_cast<size_t>(len);
  return P2B_OK;
}

}  // namespace

extern "C" {

JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeDefaults(JNIEnv* env, jclass /*cls*/,
                                                            jintArray u32, jdoubleArray f64) {
  const p2b_status arrays = config_arrays(env, u32, kU32, f64, kF64, P2B_ERR_BUFFER_TOO_SMALL);
  if (arrays != P2B_OK) return ret(arrays);
  p2b_config c;
  const p2b_status defaults = p2b_config_default(&c);
  if (defaults != P2B_OK) return ret(defaults);
  const jint u[kU32] = {static_cast<jint>(c.dim),
                        static_cast<jint>(c.n_actions),
                        static_cast<jint>(c.policy),
                        static_cast<jint>(c.round_digits),
                        static_cast<jint>(c.window),
                        static_cast<jint>(c.pending_capacity),
                        static_cast<jint>(c.outbox_capacity),
                        static_cast<jint>(c.rng_mode),
                        static_cast<jint>(c.min_model_version & 0xFFFFFFFFU),
                        static_cast<jint>(c.min_model_version >> 32U),
                        static_cast<jint>(c.accept_baseline_models)};
  const jdouble f[kF64] = {c.alpha,         c.ridge_lambda, c.ts_scale,
                           c.participation, c.neg_rate,     c.epsilon_budget};
  env->SetIntArrayRegion(u32, 0, kU32, u);
  env->SetDoubleArrayRegion(f64, 0, kF64, f);
  return ret(P2B_OK);
}

// out[0]: bytes the direct buffer needs, the footprint plus slack for
// alignment (allocateDirect promises none).
JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeFootprint(
    JNIEnv* env, jclass /*cls*/, jintArray u32, jdoubleArray f64, jlong seed, jfloatArray centroids,
    jbyteArray shuffler_key, jbyteArray analyzer_key, jbyteArray verify_key, jlongArray out) {
  JavaConfig jc;
  const jbyteArray keys[3] = {shuffler_key, analyzer_key, verify_key};
  p2b_status s = read_config(env, u32, f64, seed, keys, &jc);
  if (s != P2B_OK) return ret(s);
  if (out == nullptr || env->GetArrayLength(out) < 1) return ret(P2B_ERR_NULL_POINTER);
  size_t bytes = 0;
  {
    const Pinned book(env, centroids, false);
    s = attach_codebook(book, &jc.cfg);
    if (s == P2B_OK) s = p2b_agent_footprint(&jc.cfg, &bytes);
  }
  return put(env, out, p2b_jni::buffer_bytes(bytes), 0, 1, s);
}

// out[0]: the agent handle, a pointer into `arena`.
JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeInit(JNIEnv* env, jclass /*cls*/, jobject arena,
                                                        jintArray u32, jdoubleArray f64, jlong seed,
                                                        jfloatArray centroids,
                                                        jbyteArray shuffler_key,
                                                        jbyteArray analyzer_key,
                                                        jbyteArray verify_key, jlongArray out) {
  JavaConfig jc;
  const jbyteArray keys[3] = {shuffler_key, analyzer_key, verify_key};
  p2b_status s = read_config(env, u32, f64, seed, keys, &jc);
  if (s != P2B_OK) return ret(s);
  if (out == nullptr || env->GetArrayLength(out) < 1) return ret(P2B_ERR_NULL_POINTER);
  p2b_jni::Arena mem;
  s = p2b_jni::arena_of(env, arena, &mem);
  if (s != P2B_OK) return ret(s);
  p2b_agent* agent = nullptr;
  {
    const Pinned book(env, centroids, false);
    s = attach_codebook(book, &jc.cfg);
    if (s == P2B_OK) s = p2b_agent_init(mem.base, mem.len, &jc.cfg, &agent);
  }
  return put(env, out, p2b_jni::to_handle(agent), 0, 1, s);
}

// out[0]: P2B_ENVELOPE_BYTES for these settings (the codebook and keys play no part).
JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeEnvelopeSize(JNIEnv* env, jclass /*cls*/,
                                                                jintArray u32, jdoubleArray f64,
                                                                jlongArray out) {
  p2b_config c;
  p2b_status s = read_scalars(env, u32, f64, 0, &c);
  size_t bytes = 0;
  if (s == P2B_OK) s = p2b_envelope_size(&c, &bytes);
  return put(env, out, static_cast<jlong>(bytes), 0, 1, s);
}

// out[0]: action, out[1]: decision id.
JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeDecide(JNIEnv* env, jclass /*cls*/, jlong handle,
                                                          jfloatArray context, jlongArray out) {
  Context x;
  p2b_status s = read_context(env, context, &x);
  uint32_t action = 0;
  uint64_t id = 0;
  if (s == P2B_OK) s = p2b_agent_decide(agent_of(handle), x.x, x.len, &action, &id);
  return put(env, out, static_cast<jlong>(action), static_cast<jlong>(id), 2, s);
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeReward(JNIEnv* /*env*/, jclass /*cls*/,
                                                          jlong handle, jlong decision_id,
                                                          jfloat reward) {
  return ret(p2b_agent_reward(agent_of(handle), static_cast<uint64_t>(decision_id), reward));
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeLearn(JNIEnv* env, jclass /*cls*/, jlong handle,
                                                         jfloatArray context, jint action,
                                                         jfloat reward) {
  Context x;
  const p2b_status s = read_context(env, context, &x);
  if (s != P2B_OK) return ret(s);
  return ret(p2b_agent_learn(agent_of(handle), x.x, x.len, static_cast<uint32_t>(action), reward));
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeForget(JNIEnv* /*env*/, jclass /*cls*/,
                                                          jlong handle) {
  return ret(p2b_agent_forget(agent_of(handle)));
}

// mean and width receive n_actions values each; the capacity is the shorter array.
JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeScores(JNIEnv* env, jclass /*cls*/, jlong handle,
                                                          jfloatArray context, jfloatArray mean,
                                                          jfloatArray width) {
  Context x;
  const p2b_status s = read_context(env, context, &x);
  if (s != P2B_OK) return ret(s);
  Pinned m(env, mean, true, Pinned::Defer);
  Pinned w(env, width, true, Pinned::Defer);
  m.pin();
  w.pin();
  if (m.failed() || w.failed()) return ret(P2B_ERR_NULL_POINTER);
  return ret(p2b_agent_scores(agent_of(handle), x.x, x.len, static_cast<float*>(m.data()),
                              static_cast<float*>(w.data()),
                              m.size() < w.size() ? m.size() : w.size()));
}

// Sealed on the stack, then copied out: a report is dequeued once sealed, so
// the Java array's capacity is checked first and the copy cannot fail.
JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativePollReport(JNIEnv* env, jclass /*cls*/,
                                                              jlong handle, jbyteArray envelope) {
  if (envelope == nullptr) return ret(P2B_ERR_NULL_POINTER);
  uint8_t sealed[P2B_ENVELOPE_BYTES];
  const auto cap = static_cast<size_t>(env->GetArrayLength(envelope));
  size_t written = 0;
  const p2b_status s = p2b_agent_poll_envelope(agent_of(handle), sealed,
                                               cap < sizeof sealed ? cap : sizeof sealed, &written);
  if (s == P2B_OK) {
    env->SetByteArrayRegion(envelope, 0, static_cast<jsize>(written),
                            reinterpret_cast<const jbyte*>(sealed));
  }
  return ret(s);
}

// out: code, action, the reward's float bits. Informational statuses
// (nothing to take) come back as they are, with `out` untouched.
JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativePollTuple(JNIEnv* env, jclass /*cls*/,
                                                             jlong handle, jlongArray out) {
  if (out == nullptr || env->GetArrayLength(out) < 3) return ret(P2B_ERR_NULL_POINTER);
  p2b_tuple t{};
  const p2b_status s = p2b_agent_poll_tuple(agent_of(handle), &t);
  if (s != P2B_OK) return ret(s);
  uint32_t bits = 0;
  std::memcpy(&bits, &t.reward, sizeof bits);
  const jlong v[3] = {static_cast<jlong>(t.code), static_cast<jlong>(t.action),
                      static_cast<jlong>(bits)};
  return put(env, out, v, 3, s);
}

// out: shuffler, analyzer, analyzer_verify and codebook fingerprints, one after another.
JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeFingerprints(JNIEnv* env, jclass /*cls*/,
                                                                jlong handle, jbyteArray out) {
  if (out == nullptr) return ret(P2B_ERR_NULL_POINTER);
  if (env->GetArrayLength(out) < static_cast<jsize>(sizeof(p2b_fingerprints))) {
    return ret(P2B_ERR_BUFFER_TOO_SMALL);
  }
  p2b_fingerprints fps;
  const p2b_status s = p2b_agent_fingerprints(agent_of(handle), &fps);
  if (s != P2B_OK) return ret(s);
  const uint8_t* parts[4] = {fps.shuffler, fps.analyzer, fps.analyzer_verify, fps.codebook};
  for (jsize i = 0; i < 4; ++i) {
    env->SetByteArrayRegion(out, i * P2B_FINGERPRINT_BYTES, P2B_FINGERPRINT_BYTES,
                            reinterpret_cast<const jbyte*>(parts[i]));
  }
  return ret(s);
}

// f: epsilon per report, spent, budget; out: reports, windows closed, dropped, exhausted.
JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativePrivacy(JNIEnv* env, jclass /*cls*/,
                                                           jlong handle, jdoubleArray f,
                                                           jlongArray out) {
  if (f == nullptr || env->GetArrayLength(f) < 3) return ret(P2B_ERR_NULL_POINTER);
  p2b_privacy p{};
  const p2b_status s = p2b_agent_privacy(agent_of(handle), &p);
  if (s != P2B_OK) return ret(s);
  const jdouble d[3] = {p.epsilon_per_report, p.epsilon_spent, p.epsilon_budget};
  env->SetDoubleArrayRegion(f, 0, 3, d);
  const jlong v[4] = {static_cast<jlong>(p.reports), static_cast<jlong>(p.windows_closed),
                      static_cast<jlong>(p.dropped_outbox_full), static_cast<jlong>(p.exhausted)};
  return put(env, out, v, 4, s);
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeEncode(JNIEnv* env, jclass /*cls*/, jlong handle,
                                                          jfloatArray context, jlongArray out) {
  Context x;
  p2b_status s = read_context(env, context, &x);
  uint32_t code = 0;
  if (s == P2B_OK) s = p2b_agent_encode(agent_of(handle), x.x, x.len, &code);
  return put(env, out, static_cast<jlong>(code), 0, 1, s);
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeCentroid(JNIEnv* env, jclass /*cls*/,
                                                            jlong handle, jint code,
                                                            jfloatArray out) {
  const Pinned row(env, out, true);
  if (row.failed()) return ret(P2B_ERR_NULL_POINTER);
  return ret(p2b_agent_centroid(agent_of(handle), static_cast<uint32_t>(code),
                                static_cast<float*>(row.data()), row.size()));
}

// The arrays must hold exactly n_actions * dim * dim and n_actions * dim values.
JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeImport(JNIEnv* env, jclass /*cls*/, jlong handle,
                                                          jdoubleArray a, jdoubleArray b,
                                                          jint n_actions, jint dim, jint form) {
  if (n_actions < 0 || dim < 0) return ret(P2B_ERR_DIMENSION_MISMATCH);
  const auto n = static_cast<size_t>(n_actions);
  const auto d = static_cast<size_t>(dim);
  Pinned pa(env, a, false, Pinned::Defer);
  Pinned pb(env, b, false, Pinned::Defer);
  pa.pin();
  pb.pin();
  if (pa.failed() || pb.failed()) return ret(P2B_ERR_NULL_POINTER);
  if ((pa.data() != nullptr && pa.size() != n * d * d) ||
      (pb.data() != nullptr && pb.size() != n * d)) {
    return ret(P2B_ERR_DIMENSION_MISMATCH);
  }
  return ret(p2b_agent_import(agent_of(handle), static_cast<const double*>(pa.data()),
                              static_cast<const double*>(pb.data()),
                              static_cast<uint32_t>(n_actions), static_cast<uint32_t>(dim),
                              static_cast<uint32_t>(form)));
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeExport(JNIEnv* env, jclass /*cls*/, jlong handle,
                                                          jdoubleArray a, jdoubleArray b,
                                                          jint n_actions, jint dim) {
  if (n_actions < 0 || dim < 0) return ret(P2B_ERR_DIMENSION_MISMATCH);
  const auto n = static_cast<size_t>(n_actions);
  const auto d = static_cast<size_t>(dim);
  Pinned pa(env, a, true, Pinned::Defer);
  Pinned pb(env, b, true, Pinned::Defer);
  pa.pin();
  pb.pin();
  if (pa.failed() || pb.failed()) return ret(P2B_ERR_NULL_POINTER);
  if ((pa.data() != nullptr && pa.size() < n * d * d) ||
      (pb.data() != nullptr && pb.size() < n * d)) {
    return ret(P2B_ERR_BUFFER_TOO_SMALL);
  }
  return ret(p2b_agent_export(agent_of(handle), static_cast<double*>(pa.data()),
                              static_cast<double*>(pb.data()), static_cast<uint32_t>(n_actions),
                              static_cast<uint32_t>(dim)));
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeApplyModel(JNIEnv* env, jclass /*cls*/,
                                                              jlong handle, jbyteArray bundle) {
  const Pinned b(env, bundle, false);
  if (b.failed()) return ret(P2B_ERR_NULL_POINTER);
  return ret(
      p2b_agent_apply_model(agent_of(handle), static_cast<const uint8_t*>(b.data()), b.size()));
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeApplyModelAt(JNIEnv* env, jclass /*cls*/,
                                                                jlong handle, jbyteArray bundle,
                                                                jlong now_unix) {
  const Pinned b(env, bundle, false);
  if (b.failed()) return ret(P2B_ERR_NULL_POINTER);
  return ret(p2b_agent_apply_model_at(agent_of(handle), static_cast<const uint8_t*>(b.data()),
                                      b.size(), static_cast<uint64_t>(now_unix)));
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeModelVersion(JNIEnv* env, jclass /*cls*/,
                                                                jlong handle, jlongArray out) {
  uint64_t version = 0;
  const p2b_status s = p2b_agent_model_version(agent_of(handle), &version);
  return put(env, out, static_cast<jlong>(version), 0, 1, s);
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeModelVersionOf(JNIEnv* env, jclass /*cls*/,
                                                                  jlong handle, jint kind,
                                                                  jlongArray out) {
  uint64_t version = 0;
  const p2b_status s =
      p2b_agent_model_version_of(agent_of(handle), static_cast<uint32_t>(kind), &version);
  return put(env, out, static_cast<jlong>(version), 0, 1, s);
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeApplyKeyList(JNIEnv* env, jclass /*cls*/,
                                                                jlong handle, jbyteArray list,
                                                                jlong now_unix) {
  const Pinned l(env, list, false);
  if (l.failed()) return ret(P2B_ERR_NULL_POINTER);
  return ret(p2b_agent_apply_key_list(agent_of(handle), static_cast<const uint8_t*>(l.data()),
                                      l.size(), static_cast<uint64_t>(now_unix)));
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeKeyListVersion(JNIEnv* env, jclass /*cls*/,
                                                                  jlong handle, jlongArray out) {
  uint64_t version = 0;
  const p2b_status s = p2b_agent_key_list_version(agent_of(handle), &version);
  return put(env, out, static_cast<jlong>(version), 0, 1, s);
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeEnvelopeKeyAccepted(JNIEnv* env, jclass /*cls*/,
                                                                       jlong handle,
                                                                       jbyteArray envelope) {
  const Pinned e(env, envelope, false);
  if (e.failed()) return ret(P2B_ERR_NULL_POINTER);
  return ret(p2b_agent_envelope_key_accepted(agent_of(handle),
                                             static_cast<const uint8_t*>(e.data()), e.size()));
}

// out[0]: p2b_agent_save_size, out[1]: p2b_agent_save_encrypted_size.
JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeSaveSizes(JNIEnv* env, jclass /*cls*/,
                                                             jlong handle, jlongArray out) {
  size_t plain = 0;
  size_t sealed = 0;
  p2b_status s = p2b_agent_save_size(agent_of(handle), &plain);
  if (s == P2B_OK) s = p2b_agent_save_encrypted_size(agent_of(handle), &sealed);
  return put(env, out, static_cast<jlong>(plain), static_cast<jlong>(sealed), 2, s);
}

// out[0]: bytes written.
JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeSave(JNIEnv* env, jclass /*cls*/, jlong handle,
                                                        jbyteArray state_key, jboolean encrypted,
                                                        jbyteArray state, jlongArray out) {
  return save_state(
      env, state_key, state, out, [&](const uint8_t* key, void* buf, size_t cap, size_t* written) {
        return encrypted != JNI_FALSE
                   ? p2b_agent_save_encrypted(agent_of(handle), key, buf, cap, written)
                   : p2b_agent_save(agent_of(handle), key, buf, cap, written);
      });
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeRestore(JNIEnv* env, jclass /*cls*/,
                                                           jlong handle, jbyteArray state_key,
                                                           jboolean encrypted, jbyteArray state) {
  return restore_state(env, state_key, state, encrypted != JNI_FALSE,
                       [&](const uint8_t* key, void* buf, size_t len) {
                         return encrypted != JNI_FALSE
                                    ? p2b_agent_restore_encrypted(agent_of(handle), key,
                                                                  static_cast<uint8_t*>(buf), len)
                                    : p2b_agent_restore(agent_of(handle), key, buf, len);
                       });
}

}  // extern "C"
