// Writes the deployment the binding tests run against (Java's P2BAgentTest
// and friends; Swift's P2BTests through scripts/swift-test.sh): fresh keys,
// a small codebook with the agent's shape (raw and as a codebook file),
// signed warm-start bundles for the agent and the shared model, and signed
// shuffler-key lists, each also by a stranger's key.
//
//   usage: p2b_binding_fixture <dir>
//
// Files: shape.bin (dim, n_actions as uint32 LE, then the codebook as
// float32 LE), codebook.p2bc, {shuffler,shuffler2,analyzer,verify}.pk,
// model.bundle, foreign.bundle, raw.bundle, expiring.bundle, shared.bundle,
// shared-foreign.bundle, keylist1.bin (shuffler2 current, shuffler still
// accepted), keylist2.bin (shuffler retired), keylist-foreign.bin.
#include <sodium.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "p2b.h"
#include "p2b/codebook_format.hpp"
#include "p2b/key_list.hpp"
#include "wire/model_bundle.hpp"

namespace {

constexpr uint32_t kDim = 4;
constexpr uint32_t kActions = 3;
constexpr uint32_t kCodes = 4;
constexpr uint32_t kPreferred = 1;  // the action the model makes every context choose
constexpr uint32_t kDigits = 1;
constexpr uint32_t kSharedDim = 3;  // the shared model's d; its bundle makes theta = (1, 0, 0)

bool write_file(const std::string& path, const void* data, size_t len) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(data, 1, len, f) == len;
  return std::fclose(f) == 0 && ok;
}

template <typename T>
void append_le(std::vector<uint8_t>* out, T value) {
  uint8_t raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof raw);  // the test hosts are little-endian
  out->insert(out->end(), raw, raw + sizeof raw);
}

// The codebook's fingerprint, as an agent set up with it reports it.
bool codebook_fingerprint(const float* codebook, const uint8_t* any_key, uint8_t* fp) {
  p2b_config cfg;
  if (p2b_config_default(&cfg) != P2B_OK) return false;
  cfg.dim = kDim;
  cfg.n_actions = kActions;
  cfg.centroids = codebook;
  cfg.n_codes = kCodes;
  cfg.shuffler_public_key = any_key;
  cfg.analyzer_public_key = any_key;
  cfg.analyzer_verify_key = any_key;
  size_t need = 0;
  if (p2b_agent_footprint(&cfg, &need) != P2B_OK) return false;
  std::vector<uint8_t> arena(need + P2B_ARENA_ALIGN);
  void* mem = arena.data() +
              (P2B_ARENA_ALIGN - reinterpret_cast<uintptr_t>(arena.data()) % P2B_ARENA_ALIGN) %
                  P2B_ARENA_ALIGN;
  p2b_agent* agent = nullptr;
  p2b_fingerprints fps;
  if (p2b_agent_init(mem, need, &cfg, &agent) != P2B_OK ||
      p2b_agent_fingerprints(agent, &fps) != P2B_OK) {
    return false;
  }
  std::memcpy(fp, fps.codebook, sizeof fps.codebook);
  return true;
}

// A model in which every arm has seen the same amount of data (A = 10 I)
// and only kPreferred was ever rewarded (theta = all ones): version 1 and
// private unless said otherwise.
bool signed_model(const uint8_t* codebook_fp, const uint8_t* sign_sk, std::vector<uint8_t>* out,
                  uint64_t version = 1, uint32_t kind = 0, uint64_t not_after_unix = 0) {
  p2b::server::ModelSpec spec;
  spec.dim = kDim;
  spec.n_actions = kActions;
  spec.version = version;
  spec.created_unix = 1795000000;
  spec.kind = kind;
  spec.not_after_unix = not_after_unix;
  std::memcpy(spec.codebook_fp, codebook_fp, sizeof spec.codebook_fp);
  std::vector<double> a(static_cast<size_t>(kActions) * kDim * kDim, 0.0);
  std::vector<double> b(static_cast<size_t>(kActions) * kDim, 0.0);
  for (uint32_t arm = 0; arm < kActions; ++arm) {
    for (uint32_t i = 0; i < kDim; ++i) a[(arm * kDim + i) * kDim + i] = 10.0;
  }
  for (uint32_t i = 0; i < kDim; ++i) b[kPreferred * kDim + i] = 10.0;
  std::string err;
  if (!p2b::server::build_model_bundle(spec, a.data(), b.data(), sign_sk, out, &err)) {
    std::fprintf(stderr, "p2b_binding_fixture: %s\n", err.c_str());
    return false;
  }
  return true;
}

// The codebook file, as p2b-codebook writes it; only the hash is needed.
bool codebook_file(const float* codebook, std::vector<uint8_t>* out) {
  p2b::CryptoPort port{};
  port.hash = [](uint8_t* digest, size_t digest_len, const uint8_t* msg, size_t len) {
    return crypto_generichash(digest, digest_len, msg, len, nullptr, 0);
  };
  size_t bytes = 0;
  if (p2b::encoded_codebook_size(codebook, kCodes, kDim, kDigits, &bytes) != p2b::Status::ok) {
    return false;
  }
  out->resize(bytes);
  size_t written = 0;
  return p2b::encode_codebook(port, codebook, kCodes, kDim, kDigits, out->data(), out->size(),
                              &written) == p2b::Status::ok &&
         written == bytes;
}

// A shuffler-key list of `keys` (the first current), signed with `sign_sk`,
// as p2b-keylist makes it.
bool signed_key_list(uint64_t version, const std::vector<const uint8_t*>& keys,
                     const uint8_t* sign_sk, std::vector<uint8_t>* out) {
  p2b::KeyList l{};
  l.version = version;
  l.created_unix = 1795000000;
  l.count = static_cast<uint32_t>(keys.size());
  l.current = 0;
  for (size_t i = 0; i < keys.size(); ++i) std::memcpy(l.keys[i], keys[i], P2B_KEY_BYTES);
  crypto_generichash(l.signer_fp, sizeof l.signer_fp, sign_sk + 32, 32, nullptr, 0);
  out->assign(p2b::kKeyListBytes, 0);
  if (p2b::encode_key_list(l, out->data()) != p2b::Status::ok) return false;
  return crypto_sign_detached(out->data() + p2b::kKeyListSignedBytes, nullptr, out->data(),
                              p2b::kKeyListSignedBytes, sign_sk) == 0;
}

// A shared model's warm start: S = 9 I on top of lambda = 1, u = (10, 0, 0).
bool signed_shared_model(const uint8_t* sign_sk, std::vector<uint8_t>* out) {
  p2b::server::ModelSpec spec;
  spec.dim = kSharedDim;
  spec.version = 1;
  spec.created_unix = 1795000000;
  std::vector<double> gram(static_cast<size_t>(kSharedDim) * kSharedDim, 0.0);
  for (uint32_t i = 0; i < kSharedDim; ++i) gram[i * kSharedDim + i] = 9.0;
  const double moment[kSharedDim] = {10.0, 0.0, 0.0};
  std::string err;
  if (!p2b::server::build_shared_model_bundle(spec, gram.data(), moment, sign_sk, out, &err)) {
    std::fprintf(stderr, "p2b_binding_fixture: %s\n", err.c_str());
    return false;
  }
  return true;
}

bool write_all(const std::string& dir,
               const std::vector<std::pair<const char*, const std::vector<uint8_t>*>>& files) {
  for (const auto& f : files) {
    if (!write_file(dir + "/" + f.first, f.second->data(), f.second->size())) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: p2b_binding_fixture <dir>\n");
    return 2;
  }
  if (sodium_init() < 0) return 1;
  const std::string dir = argv[1];
  static const float kCodebook[kCodes * kDim] = {0.7f, 0.1f, 0.1f, 0.1f, 0.1f, 0.7f, 0.1f, 0.1f,
                                                 0.1f, 0.1f, 0.7f, 0.1f, 0.1f, 0.1f, 0.1f, 0.7f};
  uint8_t shuffler_pk[crypto_box_PUBLICKEYBYTES], shuffler_sk[crypto_box_SECRETKEYBYTES];
  uint8_t analyzer_pk[crypto_box_PUBLICKEYBYTES], analyzer_sk[crypto_box_SECRETKEYBYTES];
  uint8_t verify_pk[crypto_sign_PUBLICKEYBYTES], sign_sk[crypto_sign_SECRETKEYBYTES];
  uint8_t stranger_pk[crypto_sign_PUBLICKEYBYTES], stranger_sk[crypto_sign_SECRETKEYBYTES];
  crypto_box_keypair(shuffler_pk, shuffler_sk);
  crypto_box_keypair(analyzer_pk, analyzer_sk);
  crypto_sign_keypair(verify_pk, sign_sk);
  crypto_sign_keypair(stranger_pk, stranger_sk);
  uint8_t shuffler2_pk[crypto_box_PUBLICKEYBYTES], shuffler2_sk[crypto_box_SECRETKEYBYTES];
  crypto_box_keypair(shuffler2_pk, shuffler2_sk);

  std::vector<uint8_t> shape;
  append_le(&shape, kDim);
  append_le(&shape, kActions);
  for (float v : kCodebook) append_le(&shape, v);

  uint8_t codebook_fp[P2B_FINGERPRINT_BYTES];
  std::vector<uint8_t> model, foreign, raw, expiring, book, shared, shared_foreign, list1, list2,
      list_foreign;
  const bool ok = codebook_fingerprint(kCodebook, verify_pk, codebook_fp) &&
                  signed_model(codebook_fp, sign_sk, &model) &&
                  signed_model(codebook_fp, stranger_sk, &foreign) &&
                  signed_model(codebook_fp, sign_sk, &raw, 2, 1) &&
                  signed_model(codebook_fp, sign_sk, &expiring, 2, 0, 1795003600) &&
                  write_file(dir + "/raw.bundle", raw.data(), raw.size()) &&
                  write_file(dir + "/expiring.bundle", expiring.data(), expiring.size()) &&
                  write_file(dir + "/shape.bin", shape.data(), shape.size()) &&
                  write_file(dir + "/shuffler.pk", shuffler_pk, sizeof shuffler_pk) &&
                  write_file(dir + "/analyzer.pk", analyzer_pk, sizeof analyzer_pk) &&
                  write_file(dir + "/verify.pk", verify_pk, sizeof verify_pk) &&
                  write_file(dir + "/model.bundle", model.data(), model.size()) &&
                  write_file(dir + "/foreign.bundle", foreign.data(), foreign.size()) &&
                  write_file(dir + "/shuffler2.pk", shuffler2_pk, sizeof shuffler2_pk) &&
                  codebook_file(kCodebook, &book) && signed_shared_model(sign_sk, &shared) &&
                  signed_shared_model(stranger_sk, &shared_foreign) &&
                  signed_key_list(1, {shuffler2_pk, shuffler_pk}, sign_sk, &list1) &&
                  signed_key_list(2, {shuffler2_pk}, sign_sk, &list2) &&
                  signed_key_list(3, {shuffler_pk}, stranger_sk, &list_foreign) &&
                  write_all(dir, {{"codebook.p2bc", &book},
                                  {"shared.bundle", &shared},
                                  {"shared-foreign.bundle", &shared_foreign},
                                  {"keylist1.bin", &list1},
                                  {"keylist2.bin", &list2},
                                  {"keylist-foreign.bin", &list_foreign}});
  if (!ok)
    std::fprintf(stderr, "p2b_binding_fixture: could not write the fixture to %s\n", dir.c_str());
  return ok ? 0 : 1;
}
