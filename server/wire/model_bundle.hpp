// Building signed warm-start model bundles (the analyzer's side of
// src/model_apply.cpp). Server code: it may allocate, the device never runs it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "p2b/crypto.hpp"

namespace p2b::server {

struct ModelSpec {
  uint32_t dim = 0;
  uint32_t n_actions = 0;
  uint32_t policy = 0;
  double alpha = 1.0;
  double ridge_lambda = 1.0;
  double ts_scale = 0.1;
  uint8_t codebook_fp[kFingerprintBytes] = {};
  uint64_t version = 0;
  uint64_t created_unix = 0;
  uint32_t kind = 0;             // 0 private, 1 raw baseline (p2b.proto ModelHeader.kind)
  uint64_t not_after_unix = 0;   // 0: no expiry
  double central_epsilon = 0.0;  // 0: no central DP noise in the statistics
  double central_delta = 0.0;
};

// `a` holds n_actions column-major dim x dim matrices (A_a, prior included),
// `b` n_actions vectors. `sign_sk` is the 64-byte Ed25519 secret key. Returns
// false with a reason in `err` on bad shapes or encoding failure.
bool build_model_bundle(const ModelSpec& spec, const double* a, const double* b,
                        const uint8_t* sign_sk, std::vector<uint8_t>* out, std::string* err);

// FCLUB's warm start for one cluster's devices (p2b::SharedModel::apply_model):
// the cluster's Gram matrix S = sum x x^T (`gram`, dim x dim column-major) and
// moment u = sum y x (`moment`, dim) as one arm, A = spec.ridge_lambda I + S
// and b = u, with n_actions 1, the shared-model marker as codebook_fp and kind
// 0; the other fields of `spec` are taken as given. The count n of rounds
// behind S is not part of the format: the device's ridge needs only A and b.
bool build_shared_model_bundle(const ModelSpec& spec, const double* gram, const double* moment,
                               const uint8_t* sign_sk, std::vector<uint8_t>* out, std::string* err);

}  // namespace p2b::server
