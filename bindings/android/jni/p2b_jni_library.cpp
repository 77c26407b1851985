// JNI shim behind org.p2b.P2B: the calls that take no agent (version,
// status names, sizes and compiled limits, fingerprints, privacy figures,
// codebook files).
#include <cstdint>
#include <cstring>

#include "jni_support.hpp"
#include "p2b.h"

#ifdef P2B_JNI_CHECK_HEADERS
// javac -h output: the compiler checks these signatures against P2B.java.
#include "org_p2b_P2B.h"
#endif

using p2b_jni::Pinned;
using p2b_jni::put;
using p2b_jni::ret;

extern "C" {

JNIEXPORT jint JNICALL Java_org_p2b_P2B_nativeVersion(JNIEnv* /*env*/, jclass /*cls*/) {
  return static_cast<jint>(p2b_version());
}

JNIEXPORT jstring JNICALL Java_org_p2b_P2B_nativeVersionString(JNIEnv* env, jclass /*cls*/) {
  return env->NewStringUTF(p2b_version_string());
}

JNIEXPORT jstring JNICALL Java_org_p2b_P2B_nativeStatusStr(JNIEnv* env, jclass /*cls*/,
                                                           jint status) {
  return env->NewStringUTF(p2b_status_str(static_cast<p2b_status>(status)));
}

JNIEXPORT jboolean JNICALL Java_org_p2b_P2B_nativeIsError(JNIEnv* /*env*/, jclass /*cls*/,
                                                          jint status) {
  return p2b_is_error(static_cast<p2b_status>(status)) != 0 ? JNI_TRUE : JNI_FALSE;
}

// Every size and compiled limit in one call, in the order of P2B.LIMIT_*.
JNIEXPORT jint JNICALL Java_org_p2b_P2B_nativeLimits(JNIEnv* env, jclass /*cls*/, jlongArray out) {
  const jlong v[] = {static_cast<jlong>(p2b_arena_align()),
                     static_cast<jlong>(p2b_max_dim()),
                     static_cast<jlong>(p2b_max_actions()),
                     static_cast<jlong>(p2b_max_codes()),
                     static_cast<jlong>(p2b_max_digits()),
                     static_cast<jlong>(p2b_max_window()),
                     static_cast<jlong>(p2b_max_pending()),
                     static_cast<jlong>(p2b_max_outbox()),
                     static_cast<jlong>(p2b_key_bytes()),
                     static_cast<jlong>(p2b_fingerprint_bytes()),
                     static_cast<jlong>(p2b_envelope_bytes()),
                     static_cast<jlong>(p2b_state_key_bytes()),
                     static_cast<jlong>(p2b_state_encryption_overhead()),
                     static_cast<jlong>(p2b_key_list_bytes()),
                     static_cast<jlong>(p2b_shared_max_dim()),
                     static_cast<jlong>(p2b_shared_max_items())};
  constexpr auto kCount = static_cast<jsize>(sizeof v / sizeof v[0]);
  if (out == nullptr) return ret(P2B_ERR_NULL_POINTER);
  if (env->GetArrayLength(out) != kCount) return ret(P2B_ERR_BUFFER_TOO_SMALL);
  env->SetLongArrayRegion(out, 0, kCount, v);
  return ret(P2B_OK);
}

JNIEXPORT jint JNICALL Java_org_p2b_P2B_nativeEpsilonPerReport(JNIEnv* env, jclass /*cls*/,
                                                               jdouble p, jdoubleArray out) {
  if (out == nullptr || env->GetArrayLength(out) < 1) return ret(P2B_ERR_NULL_POINTER);
  double epsilon = 0;
  const p2b_status s = p2b_epsilon_per_report(p, &epsilon);
  if (s == P2B_OK) env->SetDoubleArrayRegion(out, 0, 1, &epsilon);
  return ret(s);
}

JNIEXPORT jint JNICALL Java_org_p2b_P2B_nativeKeyFingerprint(JNIEnv* env, jclass /*cls*/,
                                                             jbyteArray key, jbyteArray out) {
  uint8_t copy[P2B_KEY_BYTES];
  const uint8_t* pk = nullptr;
  const p2b_status read = p2b_jni::read_fixed_bytes(env, key, copy, P2B_KEY_BYTES, &pk);
  if (read != P2B_OK) return ret(read);
  if (out == nullptr) return ret(P2B_ERR_NULL_POINTER);
  if (env->GetArrayLength(out) < static_cast<jsize>(P2B_FINGERPRINT_BYTES)) {
    return ret(P2B_ERR_BUFFER_TOO_SMALL);
  }
  uint8_t fp[P2B_FINGERPRINT_BYTES];
  const p2b_status s = p2b_key_fingerprint(pk, fp);
  if (s == P2B_OK) {
    env->SetByteArrayRegion(out, 0, P2B_FINGERPRINT_BYTES, reinterpret_cast<const jbyte*>(fp));
  }
  return ret(s);
}

// out: k, dim, digits; the fingerprint goes to `fingerprint`.
JNIEXPORT jint JNICALL Java_org_p2b_P2B_nativeCodebookParse(JNIEnv* env, jclass /*cls*/,
                                                            jbyteArray file, jfloatArray centroids,
                                                            jbyteArray fingerprint,
                                                            jlongArray out) {
  if (fingerprint == nullptr || out == nullptr) return ret(P2B_ERR_NULL_POINTER);
  if (env->GetArrayLength(fingerprint) < static_cast<jsize>(P2B_FINGERPRINT_BYTES)) {
    return ret(P2B_ERR_BUFFER_TOO_SMALL);
  }
  p2b_codebook_info info;
  std::memset(&info, 0, sizeof info);
  p2b_status s = P2B_OK;
  {
    Pinned in(env, file, false, Pinned::Defer);
    Pinned rows(env, centroids, true, Pinned::Defer);
    in.pin();
    rows.pin();
    if (in.failed() || rows.failed()) return ret(P2B_ERR_NULL_POINTER);
    s = p2b_codebook_parse(static_cast<const uint8_t*>(in.data()), in.size(),
                           static_cast<float*>(rows.data()), rows.size(), &info);
  }
  if (s == P2B_OK) {
    env->SetByteArrayRegion(fingerprint, 0, P2B_FINGERPRINT_BYTES,
                            reinterpret_cast<const jbyte*>(info.fingerprint));
  }
  const jlong shape[3] = {static_cast<jlong>(info.k), static_cast<jlong>(info.dim),
                          static_cast<jlong>(info.digits)};
  return put(env, out, shape, 3, s);
}

// The arenas hold what a user taught an agent or model: cleared before the
// buffer goes back to the garbage collector.
JNIEXPORT void JNICALL Java_org_p2b_P2B_nativeWipe(JNIEnv* env, jclass /*cls*/, jobject arena) {
  if (arena == nullptr) return;
  void* base = env->GetDirectBufferAddress(arena);
  const jlong capacity = env->GetDirectBufferCapacity(arena);
  if (base != nullptr && capacity > 0) std::memset(base, 0, static_cast<size_t>(capacity));
}

}  // extern "C"
