// JNI shim behind org.p2b.P2BAgent (ports/android/java). Every entry point
// returns a p2b_status; the Java side turns errors into P2BException, so no
// Java exception is ever raised from here. Nothing here allocates: small
// inputs are copied to the stack, large ones (codebook, model, state) are
// pinned with Get/ReleasePrimitiveArrayCritical for the length of one call.
#include <jni.h>

#include <cstdint>
#include <cstring>

#include "p2b.h"

#ifdef P2B_JNI_HEADER
// javac -h output: makes the compiler check every signature below against
// the native methods the Java class declares.
#include P2B_JNI_HEADER
#endif

namespace {

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
  kU32
};
enum F64Field { kAlpha, kRidge, kTsScale, kParticipation, kNegRate, kEpsilonBudget, kF64 };

jint ret(p2b_status s) {
  return static_cast<jint>(s);
}

// A Java long is how JNI carries a native pointer; the handle was made from
// one in nativeInit.
p2b_agent* agent_of(jlong handle) {
  return reinterpret_cast<p2b_agent*>(  // NOLINT(performance-no-int-to-ptr)
      static_cast<intptr_t>(handle));
}

// Pins a Java primitive array for one call; a null array gives a null pointer
// (the C API then reports P2B_ERR_NULL_POINTER). Between pin and unpin no
// other JNI call may be made, so pin last and unpin first.
class Pinned {
 public:
  Pinned(JNIEnv* env, jarray array, bool writes) : env_(env), array_(array), writes_(writes) {
    if (array != nullptr) {
      len_ = static_cast<size_t>(env->GetArrayLength(array));
      data_ = env->GetPrimitiveArrayCritical(array, nullptr);
    }
  }
  ~Pinned() {
    if (data_ != nullptr)
      env_->ReleasePrimitiveArrayCritical(array_, data_, writes_ ? 0 : JNI_ABORT);
  }
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;

  void* data() const { return data_; }
  size_t size() const { return len_; }
  // The array was given but the VM could not pin it (out of memory).
  bool failed() const { return array_ != nullptr && data_ == nullptr; }

 private:
  JNIEnv* env_;
  jarray array_;
  bool writes_;
  void* data_ = nullptr;
  size_t len_ = 0;
};

// A p2b_config assembled from the Java arrays. Keys are copied here because
// the C API borrows them for the duration of the call only.
struct JavaConfig {
  p2b_config cfg{};
  uint8_t keys[3][P2B_KEY_BYTES] = {};
};

// Fills everything but the codebook, which the caller pins last.
p2b_status read_config(JNIEnv* env, jintArray u32, jdoubleArray f64, jlong seed,
                       jbyteArray const keys[3], JavaConfig* out) {
  if (u32 == nullptr || f64 == nullptr) return P2B_ERR_NULL_POINTER;
  if (env->GetArrayLength(u32) != kU32 || env->GetArrayLength(f64) != kF64) {
    return P2B_ERR_BAD_CONFIG;
  }
  jint u[kU32];
  jdouble f[kF64];
  env->GetIntArrayRegion(u32, 0, kU32, u);
  env->GetDoubleArrayRegion(f64, 0, kF64, f);
  p2b_config& c = out->cfg;
  const p2b_status defaults = p2b_config_default(&c);
  if (defaults != P2B_OK) return defaults;
  c.dim = static_cast<uint32_t>(u[kDim]);
  c.n_actions = static_cast<uint32_t>(u[kActions]);
  c.policy = static_cast<uint32_t>(u[kPolicy]);
  c.round_digits = static_cast<uint32_t>(u[kRoundDigits]);
  c.window = static_cast<uint32_t>(u[kWindow]);
  c.pending_capacity = static_cast<uint32_t>(u[kPending]);
  c.outbox_capacity = static_cast<uint32_t>(u[kOutbox]);
  c.rng_mode = static_cast<uint32_t>(u[kRngMode]);
  c.seed = static_cast<uint64_t>(seed);
  c.min_model_version = static_cast<uint64_t>(static_cast<uint32_t>(u[kMinModelVersionLo])) |
                        static_cast<uint64_t>(static_cast<uint32_t>(u[kMinModelVersionHi])) << 32U;
  c.alpha = f[kAlpha];
  c.ridge_lambda = f[kRidge];
  c.ts_scale = f[kTsScale];
  c.participation = f[kParticipation];
  c.neg_rate = f[kNegRate];
  c.epsilon_budget = f[kEpsilonBudget];
  const uint8_t** slots[3] = {&c.shuffler_public_key, &c.analyzer_public_key,
                              &c.analyzer_verify_key};
  for (int i = 0; i < 3; ++i) {
    if (keys[i] == nullptr) continue;  // left NULL: the C API rejects it
    if (env->GetArrayLength(keys[i]) != P2B_KEY_BYTES) return P2B_ERR_BAD_CONFIG;
    env->GetByteArrayRegion(keys[i], 0, P2B_KEY_BYTES, reinterpret_cast<jbyte*>(out->keys[i]));
    *slots[i] = out->keys[i];
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

jint put(JNIEnv* env, jlongArray out, jlong v0, jlong v1, jsize n, p2b_status s) {
  if (s != P2B_OK) return ret(s);
  if (out == nullptr) return ret(P2B_ERR_NULL_POINTER);
  if (env->GetArrayLength(out) < n) return ret(P2B_ERR_BUFFER_TOO_SMALL);
  const jlong v[2] = {v0, v1};
  env->SetLongArrayRegion(out, 0, n, v);
  return ret(P2B_OK);
}

// The state key, copied to the stack (the C API borrows it for one call);
// null when `key` is null, which the C API reports.
p2b_status read_state_key(JNIEnv* env, jbyteArray key, uint8_t out[P2B_STATE_KEY_BYTES],
                          const uint8_t** ptr) {
  *ptr = nullptr;
  if (key == nullptr) return P2B_OK;
  if (env->GetArrayLength(key) != P2B_STATE_KEY_BYTES) return P2B_ERR_BAD_CONFIG;
  env->GetByteArrayRegion(key, 0, P2B_STATE_KEY_BYTES, reinterpret_cast<jbyte*>(out));
  *ptr = out;
  return P2B_OK;
}

}  // namespace

extern "C" {

JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeDefaults(JNIEnv* env, jclass /*cls*/,
                                                            jintArray u32, jdoubleArray f64) {
  if (u32 == nullptr || f64 == nullptr) return ret(P2B_ERR_NULL_POINTER);
  if (env->GetArrayLength(u32) != kU32 || env->GetArrayLength(f64) != kF64) {
    return ret(P2B_ERR_BUFFER_TOO_SMALL);
  }
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
                        static_cast<jint>(c.min_model_version >> 32U)};
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
  return put(env, out, static_cast<jlong>(bytes + p2b_arena_align() - 1), 0, 1, s);
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
  auto* base = static_cast<uint8_t*>(env->GetDirectBufferAddress(arena));
  const jlong capacity = env->GetDirectBufferCapacity(arena);
  if (base == nullptr || capacity <= 0) return ret(P2B_ERR_NULL_POINTER);
  const size_t align = p2b_arena_align();
  const size_t pad = (align - reinterpret_cast<uintptr_t>(base) % align) % align;
  if (static_cast<size_t>(capacity) < pad) return ret(P2B_ERR_ARENA_TOO_SMALL);
  p2b_agent* agent = nullptr;
  {
    const Pinned book(env, centroids, false);
    s = attach_codebook(book, &jc.cfg);
    if (s == P2B_OK) {
      s = p2b_agent_init(base + pad, static_cast<size_t>(capacity) - pad, &jc.cfg, &agent);
    }
  }
  return put(env, out, static_cast<jlong>(reinterpret_cast<intptr_t>(agent)), 0, 1, s);
}

// out[0]: action, out[1]: decision id.
JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeDecide(JNIEnv* env, jclass /*cls*/, jlong handle,
                                                          jfloatArray context, jlongArray out) {
  if (context == nullptr) return ret(P2B_ERR_NULL_POINTER);
  const jsize len = env->GetArrayLength(context);
  if (len > static_cast<jsize>(P2B_MAX_DIM)) return ret(P2B_ERR_DIMENSION_MISMATCH);
  float x[P2B_MAX_DIM];
  env->GetFloatArrayRegion(context, 0, len, x);
  uint32_t action = 0;
  uint64_t id = 0;
  const p2b_status s =
      p2b_agent_decide(agent_of(handle), x, static_cast<size_t>(len), &action, &id);
  return put(env, out, static_cast<jlong>(action), static_cast<jlong>(id), 2, s);
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeReward(JNIEnv* /*env*/, jclass /*cls*/,
                                                          jlong handle, jlong decision_id,
                                                          jfloat reward) {
  return ret(p2b_agent_reward(agent_of(handle), static_cast<uint64_t>(decision_id), reward));
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

JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeSaveSize(JNIEnv* env, jclass /*cls*/,
                                                            jlong handle, jlongArray out) {
  size_t bytes = 0;
  const p2b_status s = p2b_agent_save_size(agent_of(handle), &bytes);
  return put(env, out, static_cast<jlong>(bytes), 0, 1, s);
}

// out[0]: bytes written.
JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeSave(JNIEnv* env, jclass /*cls*/, jlong handle,
                                                        jbyteArray state_key, jbyteArray state,
                                                        jlongArray out) {
  if (out == nullptr) return ret(P2B_ERR_NULL_POINTER);
  uint8_t key_copy[P2B_STATE_KEY_BYTES];
  const uint8_t* key = nullptr;
  p2b_status s = read_state_key(env, state_key, key_copy, &key);
  if (s != P2B_OK) return ret(s);
  size_t written = 0;
  {
    const Pinned buf(env, state, true);
    if (buf.failed()) return ret(P2B_ERR_NULL_POINTER);
    s = p2b_agent_save(agent_of(handle), key, buf.data(), buf.size(), &written);
  }
  std::memset(key_copy, 0, sizeof key_copy);
  return put(env, out, static_cast<jlong>(written), 0, 1, s);
}

JNIEXPORT jint JNICALL Java_org_p2b_P2BAgent_nativeRestore(JNIEnv* env, jclass /*cls*/,
                                                           jlong handle, jbyteArray state_key,
                                                           jbyteArray state) {
  uint8_t key_copy[P2B_STATE_KEY_BYTES];
  const uint8_t* key = nullptr;
  p2b_status s = read_state_key(env, state_key, key_copy, &key);
  if (s != P2B_OK) return ret(s);
  {
    const Pinned buf(env, state, false);
    if (buf.failed()) return ret(P2B_ERR_NULL_POINTER);
    s = p2b_agent_restore(agent_of(handle), key, buf.data(), buf.size());
  }
  std::memset(key_copy, 0, sizeof key_copy);
  return ret(s);
}

// The arena holds what this user taught the agent: clear it before the
// buffer goes back to the garbage collector.
JNIEXPORT void JNICALL Java_org_p2b_P2BAgent_nativeWipe(JNIEnv* env, jclass /*cls*/,
                                                        jobject arena) {
  void* base = env->GetDirectBufferAddress(arena);
  const jlong capacity = env->GetDirectBufferCapacity(arena);
  if (base != nullptr && capacity > 0) std::memset(base, 0, static_cast<size_t>(capacity));
}

// The one call that creates a Java object, on the error path only.
JNIEXPORT jstring JNICALL Java_org_p2b_P2BAgent_nativeStatusStr(JNIEnv* env, jclass /*cls*/,
                                                                jint status) {
  return env->NewStringUTF(p2b_status_str(static_cast<p2b_status>(status)));
}

}  // extern "C"
