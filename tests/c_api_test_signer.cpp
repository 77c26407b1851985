#include "c_api_test_signer.h"

#include <sodium.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "p2b/key_list.hpp"
#include "wire/model_bundle.hpp"

namespace {

struct SigningKey {
  uint8_t pk[crypto_sign_PUBLICKEYBYTES];
  uint8_t sk[crypto_sign_SECRETKEYBYTES];
};

const SigningKey& signing_key() {
  static const SigningKey key = [] {
    SigningKey k{};
    if (sodium_init() < 0) std::abort();
    crypto_sign_keypair(k.pk, k.sk);
    return k;
  }();
  return key;
}

}  // namespace

extern "C" const uint8_t* c_test_verify_key(void) {
  return signing_key().pk;
}

extern "C" size_t c_test_bundle(const p2b_agent* agent, uint32_t dim, uint32_t n_actions,
                                uint32_t kind, uint64_t version, uint64_t not_after_unix,
                                uint8_t* out, size_t cap) {
  p2b_fingerprints fp;
  if (p2b_agent_fingerprints(agent, &fp) != P2B_OK) return 0;
  p2b::server::ModelSpec spec;
  spec.dim = dim;
  spec.n_actions = n_actions;
  spec.version = version;
  spec.created_unix = 1795000000;
  spec.kind = kind;
  spec.not_after_unix = not_after_unix;
  std::memcpy(spec.codebook_fp, fp.codebook, sizeof spec.codebook_fp);
  std::vector<double> a(static_cast<size_t>(n_actions) * dim * dim, 0.0);
  std::vector<double> b(static_cast<size_t>(n_actions) * dim, 0.0);
  for (size_t arm = 0; arm < n_actions; ++arm) {
    for (size_t i = 0; i < dim; ++i) a[(arm * dim + i) * dim + i] = 2.0;
  }
  std::vector<uint8_t> bundle;
  std::string err;
  if (!p2b::server::build_model_bundle(spec, a.data(), b.data(), signing_key().sk, &bundle, &err) ||
      bundle.size() > cap) {
    return 0;
  }
  std::memcpy(out, bundle.data(), bundle.size());
  return bundle.size();
}

extern "C" size_t c_test_shared_bundle(uint32_t dim, const double* gram, const double* moment,
                                       double lambda, uint64_t version, uint64_t not_after_unix,
                                       uint8_t* out, size_t cap) {
  p2b::server::ModelSpec spec;
  spec.dim = dim;
  spec.ridge_lambda = lambda;
  spec.version = version;
  spec.created_unix = 1795000000;
  spec.not_after_unix = not_after_unix;
  std::vector<uint8_t> bundle;
  std::string err;
  if (!p2b::server::build_shared_model_bundle(spec, gram, moment, signing_key().sk, &bundle,
                                              &err) ||
      bundle.size() > cap) {
    return 0;
  }
  std::memcpy(out, bundle.data(), bundle.size());
  return bundle.size();
}

extern "C" size_t c_test_key_list(uint64_t version, const uint8_t* current, const uint8_t* accepted,
                                  uint64_t not_after_unix, uint8_t* out, size_t cap) {
  p2b::KeyList l{};
  l.version = version;
  l.created_unix = 1795000000;
  l.not_after_unix = not_after_unix;
  l.count = accepted != nullptr ? 2 : 1;
  std::memcpy(l.keys[0], current, p2b::kPublicKeyBytes);
  if (accepted != nullptr) std::memcpy(l.keys[1], accepted, p2b::kPublicKeyBytes);
  crypto_generichash(l.signer_fp, sizeof l.signer_fp, signing_key().pk, sizeof signing_key().pk,
                     nullptr, 0);
  if (cap < p2b::kKeyListBytes || p2b::encode_key_list(l, out) != p2b::Status::ok) return 0;
  crypto_sign_detached(out + p2b::kKeyListSignedBytes, nullptr, out, p2b::kKeyListSignedBytes,
                       signing_key().sk);
  return p2b::kKeyListBytes;
}
