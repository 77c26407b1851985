// Verifying and applying a signed warm-start model bundle:
//   "P2BM" | delimited ModelHeader | K*(d+1) delimited ArmColumn | Ed25519 signature
// The signature is checked before a single byte is parsed; parsing then runs
// twice over the same bytes, once to validate everything and once to apply,
// so a rejected model leaves the agent exactly as it was.
#include <pb_decode.h>

#include <cmath>
#include <cstring>

#include "p2b.pb.h"
#include "p2b/agent.hpp"
#include "ridge_arm.hpp"

namespace p2b {

namespace {

constexpr uint8_t kModelMagic[4] = {'P', '2', 'B', 'M'};
constexpr uint32_t kModelFormat = 1;

// b is stored as `real`; A only needs to be finite, its factor is checked
// when computed.
bool values_ok(const double* v, std::size_t n, bool is_b) {
  for (std::size_t i = 0; i < n; ++i) {
    if (is_b ? !vector_entry_ok(v[i]) : !std::isfinite(v[i])) return false;
  }
  return true;
}

}  // namespace

Status Agent::apply_model(const uint8_t* bundle, std::size_t len) {
  if (bundle == nullptr) return Status::null_pointer;
  if (len < sizeof kModelMagic + kSignatureBytes ||
      std::memcmp(bundle, kModelMagic, sizeof kModelMagic) != 0) {
    return Status::malformed_input;
  }
  const std::size_t signed_len = len - kSignatureBytes;
  if (crypto_.verify(bundle + signed_len, bundle, signed_len, verify_pk_) != 0) {
    return Status::bad_signature;
  }
  const uint8_t* body = bundle + sizeof kModelMagic;
  const std::size_t body_len = signed_len - sizeof kModelMagic;
  const Status st = walk_model(body, body_len, false);
  if (st != Status::ok) return st;
  return walk_model(body, body_len, true);
}

Status Agent::walk_model(const uint8_t* body, std::size_t len, bool apply) {
  pb_istream_t is = pb_istream_from_buffer(body, len);
  p2b_v1_ModelHeader h = p2b_v1_ModelHeader_init_zero;
  if (!pb_decode_delimited(&is, p2b_v1_ModelHeader_fields, &h)) return Status::malformed_input;
  if (h.format != kModelFormat) return Status::unsupported_version;
  // Signed with our key yet naming another signer: not something the
  // analyzer produces, so refuse it rather than guess.
  if (std::memcmp(h.signer_fp, fp_.analyzer_verify, kFingerprintBytes) != 0) {
    return Status::malformed_input;
  }
  if (h.dim != dim_ || h.n_actions != n_actions_) return Status::model_shape_mismatch;
  if (std::memcmp(h.codebook_fp, fp_.codebook, kFingerprintBytes) != 0) {
    return Status::codebook_mismatch;
  }
  if (h.version <= model_version_) return Status::model_rollback;

  const uint32_t d = dim_;
  double* a = block<double>(off_staging_);
  real* validation_factor = block<real>(off_scratch_);
  real* work = validation_factor + static_cast<std::size_t>(d) * d;
  double b[kMaxDim];
  for (uint32_t arm_index = 0; arm_index < n_actions_; ++arm_index) {
    for (uint32_t col = 0; col <= d; ++col) {
      p2b_v1_ArmColumn c = p2b_v1_ArmColumn_init_zero;
      const uint32_t expected = col < d ? d - col : d;
      if (!pb_decode_delimited(&is, p2b_v1_ArmColumn_fields, &c) || c.arm != arm_index ||
          c.column != col || c.values_count != expected ||
          !values_ok(c.values, expected, col == d)) {
        return Status::malformed_input;
      }
      if (col == d) {
        std::memcpy(b, c.values, d * sizeof(double));
        continue;
      }
      for (uint32_t i = 0; i < expected; ++i) {
        const uint32_t row = col + i;
        a[static_cast<std::size_t>(col) * d + row] = c.values[i];
        a[static_cast<std::size_t>(row) * d + col] = c.values[i];
      }
    }
    const ArmView target = arm(arm_index);
    if (!cholesky_factor(a, d, apply ? target.L : validation_factor)) {
      return Status::not_positive_definite;  // on the apply pass this cannot happen
    }
    if (apply) {
      for (uint32_t i = 0; i < d; ++i) target.b[i] = static_cast<real>(b[i]);
      arm_refresh_theta(target, work);
    }
  }
  if (is.bytes_left != 0) return Status::malformed_input;
  if (apply) model_version_ = h.version;
  return Status::ok;
}

}  // namespace p2b
