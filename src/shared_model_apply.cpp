// A signed warm start for the shared model: the same "P2BM" bundle an agent
// applies (src/model_apply.cpp), with one arm, holding a cluster's A = lambda
// I + S and b = u (FCLUB's global statistics), and kSharedModelCodebookFp in
// place of a codebook fingerprint. The signature is checked before a byte is
// parsed; A's columns are then factored into the staging block as they are
// read, so a refused bundle changes nothing but scratch, and only a bundle
// that passed every check replaces the statistics.
#include <pb_decode.h>

#include <cmath>
#include <cstring>

#include "p2b.pb.h"
#include "p2b/codebook_format.hpp"
#include "ridge_arm.hpp"
#include "shared_state.hpp"

namespace p2b {

namespace {

constexpr uint8_t kModelMagic[4] = {'P', '2', 'B', 'M'};
constexpr uint32_t kModelFormat = 2;
// Only kind 0: a shared model has no raw-baseline switch, and an unknown
// kind may mean anything.
constexpr uint32_t kKindShared = 0;
static_assert(kSharedModelBundleMaxDim == sizeof(p2b_v1_ArmColumn::values) / sizeof(double),
              "bundle limit out of sync with proto/p2b.options");

// The checks of Agent::apply_model's header, in the same order, for one arm
// and the shared-model marker instead of a codebook.
Status check_header(const p2b_v1_ModelHeader& h, const SharedState& s, const uint64_t* now) {
  if (h.format != kModelFormat) return Status::unsupported_version;
  // Signed with our key yet naming another signer: not something the
  // server produces, so refuse it rather than guess.
  if (std::memcmp(h.signer_fp, s.verify_fp, kFingerprintBytes) != 0) {
    return Status::malformed_input;
  }
  if (h.dim != s.cfg.dim || h.n_actions != 1) return Status::model_shape_mismatch;
  if (std::memcmp(h.codebook_fp, kSharedModelCodebookFp, kFingerprintBytes) != 0) {
    return Status::codebook_mismatch;
  }
  if (h.kind != kKindShared) return Status::model_kind;
  if (now != nullptr && h.not_after_unix != 0 && h.not_after_unix < *now) {
    return Status::model_expired;
  }
  if (h.version < s.cfg.min_model_version || h.version <= s.model_version) {
    return Status::model_rollback;
  }
  return Status::ok;
}

// Reads the d + 1 columns of arm 0, factoring A's into `l` column by column
// and copying b into `b`: the staging block, never the model.
template <typename T>
Status read_arm(pb_istream_t* is, uint32_t d, T* l, T* b) {
  for (uint32_t col = 0; col <= d; ++col) {
    p2b_v1_ArmColumn c = p2b_v1_ArmColumn_init_zero;
    const uint32_t expected = col < d ? d - col : d;
    if (!pb_decode_delimited(is, p2b_v1_ArmColumn_fields, &c) || c.arm != 0 || c.column != col ||
        c.values_count != expected) {
      return Status::malformed_input;
    }
    for (uint32_t i = 0; i < expected; ++i) {
      const bool ok = col < d ? std::isfinite(c.values[i]) : vector_entry_ok_as<T>(c.values[i]);
      if (!ok) return Status::malformed_input;
    }
    if (col == d) {
      for (uint32_t i = 0; i < d; ++i) b[i] = static_cast<T>(c.values[i]);
    } else if (!cholesky_column(c.values, col, d, l)) {
      return Status::not_positive_definite;
    }
  }
  return Status::ok;
}

Status stage_body(SharedState& s, const uint8_t* body, std::size_t len, const uint64_t* now,
                  uint64_t* version) {
  pb_istream_t is = pb_istream_from_buffer(body, len);
  p2b_v1_ModelHeader h = p2b_v1_ModelHeader_init_zero;
  if (!pb_decode_delimited(&is, p2b_v1_ModelHeader_fields, &h)) return Status::malformed_input;
  Status st = check_header(h, s, now);
  if (st != Status::ok) return st;
  const uint32_t d = s.cfg.dim;
  const std::size_t b_at = static_cast<std::size_t>(d) * d;
  if (s.cfg.precision == Precision::f32) {
    auto* l = s.block<float>(s.staging);
    st = read_arm(&is, d, l, l + b_at);
  } else {
    auto* l = s.block<double>(s.staging);
    st = read_arm(&is, d, l, l + b_at);
  }
  if (st != Status::ok) return st;
  if (is.bytes_left != 0) return Status::malformed_input;
  *version = h.version;
  return Status::ok;
}

// `now` is the app's time in Unix seconds, or null when it has none.
Status apply_bundle(SharedState& s, const uint8_t* bundle, std::size_t len, const uint64_t* now) {
  if (bundle == nullptr) return Status::null_pointer;
  if (!s.has_verify_key) return Status::bad_config;
  if (s.cfg.dim > kSharedModelBundleMaxDim) return Status::dimension_mismatch;
  if (len < sizeof kModelMagic + kSignatureBytes ||
      std::memcmp(bundle, kModelMagic, sizeof kModelMagic) != 0) {
    return Status::malformed_input;
  }
  const std::size_t signed_len = len - kSignatureBytes;
  if (s.cfg.crypto.verify(bundle + signed_len, bundle, signed_len, s.verify_pk) != 0) {
    return Status::bad_signature;
  }
  uint64_t version = 0;
  const Status st =
      stage_body(s, bundle + sizeof kModelMagic, signed_len - sizeof kModelMagic, now, &version);
  if (st != Status::ok) return st;
  shared_commit_staged(s);
  s.model_version = version;
  return Status::ok;
}

}  // namespace

Status SharedModel::apply_model(const uint8_t* bundle, std::size_t len) {
  return apply_bundle(SharedState::of(this), bundle, len, nullptr);
}

Status SharedModel::apply_model_at(const uint8_t* bundle, std::size_t len, uint64_t now_unix) {
  return apply_bundle(SharedState::of(this), bundle, len, &now_unix);
}

}  // namespace p2b
