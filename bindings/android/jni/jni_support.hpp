// What every JNI source of the binding shares: handles carried as Java longs,
// arrays pinned for one call, small results written back through a long[].
// Every entry point returns a p2b_status and the Java side throws, so no Java
// exception is ever raised from native code.
#pragma once

#include <jni.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "p2b.h"

namespace p2b_jni {

inline jint ret(p2b_status s) {
  return static_cast<jint>(s);
}

// A Java long is how JNI carries a native pointer; each handle was made from
// one by the class's nativeInit.
template <typename T>
T* handle_to(jlong handle) {
  return reinterpret_cast<T*>(  // NOLINT(performance-no-int-to-ptr)
      static_cast<intptr_t>(handle));
}

template <typename T>
jlong to_handle(T* p) {
  return static_cast<jlong>(reinterpret_cast<intptr_t>(p));
}

// Pins a Java primitive array for one call; a null array gives a null pointer
// (the C API then reports P2B_ERR_NULL_POINTER). Between pin and unpin no
// other JNI call may be made, so pin last and unpin first. To pin several
// arrays, construct them all with Defer (which reads each length, a JNI call)
// and only then pin() each.
class Pinned {
 public:
  enum When { Now, Defer };
  Pinned(JNIEnv* env, jarray array, bool writes, When when = Now)
      : env_(env), array_(array), writes_(writes) {
    if (array != nullptr) len_ = static_cast<size_t>(env->GetArrayLength(array));
    if (when == Now) pin();
  }
  ~Pinned() {
    if (data_ != nullptr)
      env_->ReleasePrimitiveArrayCritical(array_, data_, writes_ ? 0 : JNI_ABORT);
  }
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;

  void pin() {
    if (array_ != nullptr && data_ == nullptr) {
      data_ = env_->GetPrimitiveArrayCritical(array_, nullptr);
    }
  }
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

// Writes n (<= 4) results to `out` when `s` is P2B_OK; otherwise returns `s`
// and leaves `out` alone.
inline jint put(JNIEnv* env, jlongArray out, const jlong* values, jsize n, p2b_status s) {
  if (s != P2B_OK) return ret(s);
  if (out == nullptr) return ret(P2B_ERR_NULL_POINTER);
  if (env->GetArrayLength(out) < n) return ret(P2B_ERR_BUFFER_TOO_SMALL);
  env->SetLongArrayRegion(out, 0, n, values);
  return ret(P2B_OK);
}

inline jint put(JNIEnv* env, jlongArray out, jlong v0, jlong v1, jsize n, p2b_status s) {
  const jlong v[2] = {v0, v1};
  return put(env, out, v, n, s);
}

// The two arrays a Java Config crosses in (integer and floating fields):
// both present and of the lengths both sides agree on. A wrong length earns
// `wrong_length`: BAD_CONFIG when the arrays are read, BUFFER_TOO_SMALL when
// they are filled.
inline p2b_status config_arrays(JNIEnv* env, jarray u, jsize nu, jarray f, jsize nf,
                                p2b_status wrong_length) {
  if (u == nullptr || f == nullptr) return P2B_ERR_NULL_POINTER;
  if (env->GetArrayLength(u) != nu || env->GetArrayLength(f) != nf) return wrong_length;
  return P2B_OK;
}

// Copies a fixed-size byte array (a key) to `out`; `*ptr` is left null for a
// null array, which the C API reports. A wrong length is P2B_ERR_BAD_CONFIG.
inline p2b_status read_fixed_bytes(JNIEnv* env, jbyteArray in, uint8_t* out, jsize len,
                                   const uint8_t** ptr) {
  *ptr = nullptr;
  if (in == nullptr) return P2B_OK;
  if (env->GetArrayLength(in) != len) return P2B_ERR_BAD_CONFIG;
  env->GetByteArrayRegion(in, 0, len, reinterpret_cast<jbyte*>(out));
  *ptr = out;
  return P2B_OK;
}

// The arena, aligned inside the direct buffer (allocateDirect promises no
// alignment); null with a status when it cannot hold anything.
struct Arena {
  uint8_t* base = nullptr;
  size_t len = 0;
};

inline p2b_status arena_of(JNIEnv* env, jobject buffer, Arena* out) {
  if (buffer == nullptr) return P2B_ERR_NULL_POINTER;
  auto* base = static_cast<uint8_t*>(env->GetDirectBufferAddress(buffer));
  const jlong capacity = env->GetDirectBufferCapacity(buffer);
  if (base == nullptr || capacity <= 0) return P2B_ERR_NULL_POINTER;
  const size_t align = p2b_arena_align();
  const size_t pad = (align - reinterpret_cast<uintptr_t>(base) % align) % align;
  if (static_cast<size_t>(capacity) < pad) return P2B_ERR_ARENA_TOO_SMALL;
  out->base = base + pad;
  out->len = static_cast<size_t>(capacity) - pad;
  return P2B_OK;
}

// Runs `call` with the state key copied to the stack, and wipes the copy after.
template <typename Call>
jint with_state_key(JNIEnv* env, jbyteArray state_key, Call call) {
  uint8_t key_copy[P2B_STATE_KEY_BYTES];
  const uint8_t* key = nullptr;
  p2b_status s = read_fixed_bytes(env, state_key, key_copy, P2B_STATE_KEY_BYTES, &key);
  if (s == P2B_OK) s = call(key);
  std::memset(key_copy, 0, sizeof key_copy);
  return ret(s);
}

// The body of every nativeSave: the key read, the buffer pinned for writing,
// then `save(key, buf, cap, &written)`; out[0] gets the bytes written.
template <typename Save>
jint save_state(JNIEnv* env, jbyteArray state_key, jbyteArray state, jlongArray out, Save save) {
  if (out == nullptr) return ret(P2B_ERR_NULL_POINTER);
  size_t written = 0;
  const jint s = with_state_key(env, state_key, [&](const uint8_t* key) {
    const Pinned buf(env, state, true);
    if (buf.failed()) return P2B_ERR_NULL_POINTER;
    return save(key, buf.data(), buf.size(), &written);
  });
  return put(env, out, static_cast<jlong>(written), 0, 1, static_cast<p2b_status>(s));
}

// The body of every nativeRestore; `writable` for the encrypted restore,
// which decrypts in place.
template <typename Restore>
jint restore_state(JNIEnv* env, jbyteArray state_key, jbyteArray state, bool writable,
                   Restore restore) {
  return with_state_key(env, state_key, [&](const uint8_t* key) {
    const Pinned buf(env, state, writable);
    if (buf.failed()) return P2B_ERR_NULL_POINTER;
    return restore(key, buf.data(), buf.size());
  });
}

// Bytes a direct buffer needs to hold a `footprint`-byte arena once aligned.
inline jlong buffer_bytes(size_t footprint) {
  return static_cast<jlong>(footprint + p2b_arena_align() - 1);
}

}  // namespace p2b_jni
