#include "model_bundle.hpp"

#include <pb_encode.h>
#include <sodium.h>

#include <cstring>

#include "p2b.pb.h"
#include "p2b/codebook_format.hpp"

namespace p2b::server {

namespace {

bool write_bundle(pb_ostream_t* os, const ModelSpec& s, const uint8_t* signer_fp, const double* a,
                  const double* b) {
  static const uint8_t kMagic[4] = {'P', '2', 'B', 'M'};
  if (!pb_write(os, kMagic, sizeof kMagic)) return false;
  p2b_v1_ModelHeader h = p2b_v1_ModelHeader_init_zero;
  h.format = 2;  // 2: kind, not-after and central DP; devices refuse 1
  h.dim = s.dim;
  h.n_actions = s.n_actions;
  h.policy = s.policy;
  h.alpha = s.alpha;
  h.ridge_lambda = s.ridge_lambda;
  h.ts_scale = s.ts_scale;
  std::memcpy(h.codebook_fp, s.codebook_fp, kFingerprintBytes);
  h.version = s.version;
  h.created_unix = s.created_unix;
  std::memcpy(h.signer_fp, signer_fp, kFingerprintBytes);
  h.kind = s.kind;
  h.not_after_unix = s.not_after_unix;
  h.central_epsilon = s.central_epsilon;
  h.central_delta = s.central_delta;
  if (!pb_encode_delimited(os, p2b_v1_ModelHeader_fields, &h)) return false;
  const std::size_t d = s.dim;
  for (uint32_t arm = 0; arm < s.n_actions; ++arm) {
    const double* a_arm = a + arm * d * d;
    for (uint32_t col = 0; col <= d; ++col) {
      p2b_v1_ArmColumn c = p2b_v1_ArmColumn_init_zero;
      c.arm = arm;
      c.column = col;
      if (col < d) {
        c.values_count = static_cast<pb_size_t>(d - col);
        for (std::size_t i = col; i < d; ++i) c.values[i - col] = a_arm[col * d + i];
      } else {
        c.values_count = static_cast<pb_size_t>(d);
        std::memcpy(c.values, b + arm * d, d * sizeof(double));
      }
      if (!pb_encode_delimited(os, p2b_v1_ArmColumn_fields, &c)) return false;
    }
  }
  return true;
}

}  // namespace

bool build_model_bundle(const ModelSpec& spec, const double* a, const double* b,
                        const uint8_t* sign_sk, std::vector<uint8_t>* out, std::string* err) {
  if (spec.dim == 0 || spec.dim > 64 || spec.n_actions == 0 || a == nullptr || b == nullptr ||
      sign_sk == nullptr || out == nullptr) {
    *err = "bad model shape or arguments";
    return false;
  }
  if (sodium_init() < 0) {
    *err = "libsodium failed to start";
    return false;
  }
  // An Ed25519 secret key carries its public key in its last 32 bytes.
  uint8_t signer_fp[kFingerprintBytes];
  crypto_generichash(signer_fp, sizeof signer_fp, sign_sk + 32, 32, nullptr, 0);
  pb_ostream_t sizing = PB_OSTREAM_SIZING;
  if (!write_bundle(&sizing, spec, signer_fp, a, b)) {
    *err = "model encoding failed";
    return false;
  }
  out->assign(sizing.bytes_written + crypto_sign_BYTES, 0);
  pb_ostream_t os = pb_ostream_from_buffer(out->data(), sizing.bytes_written);
  if (!write_bundle(&os, spec, signer_fp, a, b)) {
    *err = "model encoding failed";
    return false;
  }
  crypto_sign_detached(out->data() + sizing.bytes_written, nullptr, out->data(),
                       sizing.bytes_written, sign_sk);
  return true;
}

bool build_shared_model_bundle(const ModelSpec& spec, const double* gram, const double* moment,
                               const uint8_t* sign_sk, std::vector<uint8_t>* out,
                               std::string* err) {
  if (gram == nullptr || moment == nullptr || spec.dim == 0 || spec.dim > 64) {
    *err = "bad model shape or arguments";
    return false;
  }
  ModelSpec one = spec;
  one.n_actions = 1;
  one.kind = 0;
  std::memcpy(one.codebook_fp, kSharedModelCodebookFp, kFingerprintBytes);
  const std::size_t d = spec.dim;
  std::vector<double> a(gram, gram + d * d);
  for (std::size_t i = 0; i < d; ++i) a[i * d + i] += spec.ridge_lambda;
  return build_model_bundle(one, a.data(), moment, sign_sk, out, err);
}

}  // namespace p2b::server
