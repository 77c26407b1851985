#include "key_ring.hpp"

#include <sodium.h>

#include <algorithm>
#include <stdexcept>

#include "keyfiles.hpp"

namespace p2b::analyzer {

namespace {

std::string hex(const uint8_t* p, std::size_t n) {
  std::string s(2 * n + 1, '\0');
  sodium_bin2hex(s.data(), s.size(), p, n);
  s.pop_back();
  return s;
}

void read_public(const std::string& path, uint8_t* out, std::size_t n) {
  std::string err;
  if (!keyfiles::read_key_file(path, out, n, &err)) throw std::runtime_error(err);
}

void read_secret(const std::string& path, uint8_t* out, std::size_t n,
                 std::vector<std::string>* warnings) {
  std::string err, warning;
  if (!keyfiles::read_secret_key_file(path, out, n, &err, &warning)) {
    throw std::runtime_error(err);
  }
  if (!warning.empty() && warnings != nullptr) warnings->push_back(warning);
}

}  // namespace

KeyRing::~KeyRing() {
  wipe();
}

KeyRing::KeyRing(KeyRing&& o) noexcept : box_(std::move(o.box_)) {
  std::copy(o.sign_sk_, o.sign_sk_ + kSignSecretBytes, sign_sk_);
  o.wipe();
}

KeyRing& KeyRing::operator=(KeyRing&& o) noexcept {
  if (this != &o) {
    wipe();
    box_ = std::move(o.box_);
    std::copy(o.sign_sk_, o.sign_sk_ + kSignSecretBytes, sign_sk_);
    o.wipe();
  }
  return *this;
}

void KeyRing::wipe() {
  for (server::BoxKey& k : box_) sodium_memzero(k.sk, sizeof k.sk);
  box_.clear();
  sodium_memzero(sign_sk_, sizeof sign_sk_);
}

KeyRing KeyRing::load(const std::vector<std::string>& dirs, std::vector<std::string>* warnings) {
  if (dirs.empty()) throw std::runtime_error("no key directory given");
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to start");
  KeyRing ring;
  for (const std::string& dir : dirs) {
    const std::string base = dir + "/analyzer.box.";
    uint8_t pk[crypto_box_PUBLICKEYBYTES];
    uint8_t sk[crypto_box_SECRETKEYBYTES];
    read_public(base + "pk", pk, sizeof pk);
    read_secret(base + "sk", sk, sizeof sk, warnings);
    // A pk from one pair next to the sk of another would open nothing and
    // fail only per report; refuse it at startup instead.
    uint8_t derived[crypto_box_PUBLICKEYBYTES];
    crypto_scalarmult_base(derived, sk);
    server::BoxKey key{};
    const bool ok =
        sodium_memcmp(derived, pk, sizeof pk) == 0 && server::make_box_key(pk, sk, &key);
    sodium_memzero(sk, sizeof sk);
    if (!ok) {
      sodium_memzero(key.sk, sizeof key.sk);
      std::string why = base;
      why += "pk does not match ";
      why += base;
      why += "sk";
      throw std::runtime_error(why);
    }
    ring.box_.push_back(key);
    sodium_memzero(key.sk, sizeof key.sk);
  }
  const std::string sign_path = dirs.back() + "/analyzer.sign.sk";
  read_secret(sign_path, ring.sign_sk_, sizeof ring.sign_sk_, warnings);
  // The key is seed || public key; a damaged half would sign models that no
  // device verifies, so the halves must agree.
  uint8_t pk[crypto_sign_PUBLICKEYBYTES];
  uint8_t sk[crypto_sign_SECRETKEYBYTES];
  crypto_sign_seed_keypair(pk, sk, ring.sign_sk_);
  const bool consistent = sodium_memcmp(sk, ring.sign_sk_, sizeof sk) == 0;
  sodium_memzero(sk, sizeof sk);
  if (!consistent) throw std::runtime_error(sign_path + ": not an Ed25519 secret key");
  return ring;
}

KeyRing KeyRing::from_keys(const std::vector<server::BoxKey>& box, const uint8_t* sign_sk) {
  KeyRing ring;
  ring.box_ = box;
  std::copy(sign_sk, sign_sk + kSignSecretBytes, ring.sign_sk_);
  return ring;
}

std::vector<std::string> KeyRing::box_fingerprints() const {
  std::vector<std::string> out;
  out.reserve(box_.size());
  for (const server::BoxKey& k : box_) out.push_back(hex(k.fp, sizeof k.fp));
  return out;
}

std::string KeyRing::verify_key_fingerprint() const {
  // An Ed25519 secret key ends with its public key.
  uint8_t fp[kFingerprintBytes];
  crypto_generichash(fp, sizeof fp, sign_sk_ + 32, 32, nullptr, 0);
  return hex(fp, sizeof fp);
}

}  // namespace p2b::analyzer
