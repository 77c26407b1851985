// Builds signed model bundles for tests, from an agent's own statistics.
#pragma once

#include <string>
#include <vector>

#include "test_support.hpp"
#include "wire/model_bundle.hpp"

namespace p2b_test {

struct BundleOptions {
  uint64_t version = 1;
  const uint8_t* sign_sk = nullptr;  // default: the test deployment's key
  int dim_delta = 0;                 // build for another d or K
  int actions_delta = 0;
  bool other_codebook = false;
  uint32_t kind = 0;            // 0 private, 1 raw baseline
  uint64_t not_after_unix = 0;  // 0: none
};

// A bundle carrying `source`'s statistics, for an agent shaped like `source`.
inline std::vector<uint8_t> bundle_from(const p2b_agent* source, uint32_t dim, uint32_t actions,
                                        const BundleOptions& opt = {}) {
  p2b::server::ModelSpec spec;
  spec.dim = static_cast<uint32_t>(static_cast<int>(dim) + opt.dim_delta);
  spec.n_actions = static_cast<uint32_t>(static_cast<int>(actions) + opt.actions_delta);
  spec.version = opt.version;
  spec.created_unix = 1795000000;
  spec.kind = opt.kind;
  spec.not_after_unix = opt.not_after_unix;
  p2b_fingerprints fp;
  if (p2b_agent_fingerprints(source, &fp) != P2B_OK) std::abort();
  std::memcpy(spec.codebook_fp, fp.codebook, sizeof spec.codebook_fp);
  if (opt.other_codebook) spec.codebook_fp[0] ^= 0xFF;
  std::vector<double> a(static_cast<size_t>(spec.n_actions) * spec.dim * spec.dim, 0.0);
  std::vector<double> b(static_cast<size_t>(spec.n_actions) * spec.dim, 0.0);
  if (opt.dim_delta == 0 && opt.actions_delta == 0) {
    if (p2b_agent_export(source, a.data(), b.data(), actions, dim) != P2B_OK) std::abort();
  } else {
    for (uint32_t arm = 0; arm < spec.n_actions; ++arm) {
      for (uint32_t i = 0; i < spec.dim; ++i) a[(arm * spec.dim + i) * spec.dim + i] = 1.0;
    }
  }
  std::vector<uint8_t> out;
  std::string err;
  const uint8_t* sk = opt.sign_sk != nullptr ? opt.sign_sk : test_keys().sign_sk;
  if (!p2b::server::build_model_bundle(spec, a.data(), b.data(), sk, &out, &err)) std::abort();
  return out;
}

}  // namespace p2b_test
