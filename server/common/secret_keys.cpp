#include "common/secret_keys.hpp"

#include <sodium.h>

#include <new>
#include <type_traits>

#include "common/keyfiles.hpp"

namespace p2b::common {

namespace {

void start_sodium() {
  if (sodium_init() < 0) throw KeyError("libsodium cannot start");
}

std::string dir_prefix(const std::string& dir) {
  return dir + (dir.empty() || dir.back() == '/' ? "" : "/");
}

void read_secret(const std::string& path, uint8_t* out, std::size_t n,
                 std::vector<std::string>* warnings) {
  std::string err;
  std::string warning;
  if (!keyfiles::read_secret_key_file(path, out, n, &err, &warning)) throw KeyError(err);
  if (!warning.empty() && warnings != nullptr) warnings->push_back(warning);
}

// One pair from `base`.pk and `base`.sk, checked to belong together.
server::BoxKey read_box_pair(const std::string& base, std::vector<std::string>* warnings) {
  uint8_t pk[crypto_box_PUBLICKEYBYTES];
  uint8_t sk[crypto_box_SECRETKEYBYTES];
  std::string err;
  if (!keyfiles::read_key_file(base + ".pk", pk, sizeof pk, &err)) throw KeyError(err);
  read_secret(base + ".sk", sk, sizeof sk, warnings);
  uint8_t derived[crypto_box_PUBLICKEYBYTES];
  server::BoxKey key{};
  const bool ok = crypto_scalarmult_base(derived, sk) == 0 &&
                  sodium_memcmp(derived, pk, sizeof pk) == 0 && server::make_box_key(pk, sk, &key);
  sodium_memzero(sk, sizeof sk);
  if (!ok) {
    sodium_memzero(&key, sizeof key);
    throw KeyError(base + ".sk does not belong to " + base + ".pk");
  }
  return key;
}

}  // namespace

template <typename T>
SecureArray<T>::SecureArray(std::size_t capacity) {
  static_assert(std::is_trivially_copyable_v<T>, "wiped with sodium_memzero");
  start_sodium();
  if (capacity == 0) return;
  items_ = static_cast<T*>(sodium_allocarray(capacity, sizeof(T)));
  if (items_ == nullptr) throw std::bad_alloc();
  capacity_ = capacity;
}

template <typename T>
bool SecureArray<T>::push_back(const T& value) {
  if (size_ == capacity_) return false;
  items_[size_++] = value;
  return true;
}

template <typename T>
void SecureArray<T>::wipe() {
  if (items_ != nullptr) sodium_memzero(items_, capacity_ * sizeof(T));
  size_ = 0;
}

template <typename T>
void SecureArray<T>::release() {
  // sodium_free zeroes the memory before it unmaps it.
  if (items_ != nullptr) sodium_free(items_);
  items_ = nullptr;
  size_ = capacity_ = 0;
}

template class SecureArray<server::BoxKey>;
template class SecureArray<uint8_t>;

BoxKeys::BoxKeys(std::initializer_list<server::BoxKey> keys) : SecureArray(keys.size()) {
  for (const server::BoxKey& k : keys) push_back(k);
}

BoxKeys::BoxKeys(const std::vector<server::BoxKey>& keys) : SecureArray(keys.size()) {
  for (const server::BoxKey& k : keys) push_back(k);
}

LoadedBoxKeys load_box_keys(const std::vector<std::string>& dirs, const std::string& name) {
  if (dirs.empty()) throw KeyError("no key directory given");
  start_sodium();
  LoadedBoxKeys out;
  out.keys = BoxKeys(dirs.size());
  for (const std::string& dir : dirs) {
    server::BoxKey key = read_box_pair(dir_prefix(dir) + name, &out.warnings);
    std::string fp;
    keyfiles::fingerprint_hex(key.pk, &fp);
    bool seen = false;
    for (const std::string& f : out.fingerprints) seen = seen || f == fp;
    if (!seen) {
      out.keys.push_back(key);
      out.fingerprints.push_back(fp);
    }
    sodium_memzero(&key, sizeof key);
  }
  return out;
}

SecureArray<uint8_t> load_sign_key(const std::string& path, std::vector<std::string>* warnings) {
  start_sodium();
  SecureArray<uint8_t> key(crypto_sign_SECRETKEYBYTES);
  uint8_t* bytes = key.fill_in_place();
  read_secret(path, bytes, crypto_sign_SECRETKEYBYTES, warnings);
  SecureArray<uint8_t> derived(crypto_sign_SECRETKEYBYTES);
  uint8_t pk[crypto_sign_PUBLICKEYBYTES];
  crypto_sign_seed_keypair(pk, derived.fill_in_place(), bytes);
  if (sodium_memcmp(derived.data(), bytes, crypto_sign_SECRETKEYBYTES) != 0) {
    throw KeyError(path + ": not an Ed25519 secret key");
  }
  return key;
}

std::string verify_key_fingerprint(const uint8_t* sign_sk) {
  std::string fp;
  keyfiles::fingerprint_hex(sign_sk + crypto_sign_SECRETKEYBYTES - crypto_sign_PUBLICKEYBYTES, &fp);
  return fp;
}

}  // namespace p2b::common
