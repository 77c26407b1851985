// Verifying and applying a signed warm-start model bundle:
//   "P2BM" | delimited ModelHeader | K*(d+1) delimited ArmColumn | Ed25519 signature
// The signature is checked before a single byte is parsed; the body is then
// parsed once, each arm factored once as its columns arrive and staged whole
// (staged_arms.hpp), and only a model whose every arm passed replaces the
// agent's, so a rejected model leaves the agent exactly as it was.
#include <pb_decode.h>

#include <cmath>
#include <cstring>

#include "agent_state.hpp"
#include "p2b.pb.h"
#include "staged_arms.hpp"

namespace p2b {

namespace {

constexpr uint8_t kModelMagic[4] = {'P', '2', 'B', 'M'};
constexpr uint32_t kModelFormat = 2;
// ModelHeader.kind: built from shuffled reports, or from raw tuples (a
// non-private baseline for experiments).
constexpr uint32_t kKindPrivate = 0;
constexpr uint32_t kKindRawBaseline = 1;
// Values one ArmColumn holds as generated (proto/p2b.options).
constexpr uint32_t kModelMaxDim = sizeof(p2b_v1_ArmColumn::values) / sizeof(double);

// b is stored as `real`; A only needs to be finite, its factor is checked
// when computed.
bool values_ok(const double* v, std::size_t n, bool is_b) {
  for (std::size_t i = 0; i < n; ++i) {
    if (is_b ? !vector_entry_ok(v[i]) : !std::isfinite(v[i])) return false;
  }
  return true;
}

// The version last applied of a known kind; null for an unknown kind.
// `State` is AgentState, const or not.
template <typename State>
auto applied_version(State& s, uint32_t kind) -> decltype(&s.model_version) {
  if (kind == kKindPrivate) return &s.model_version;
  if (kind == kKindRawBaseline) return &s.baseline_model_version;
  return nullptr;
}

// The header names our signer, our shape and codebook, a kind we accept, a
// not-after time not before `now` (when known), and a version newer than
// the last one of its kind and not below the floor.
Status check_header(const p2b_v1_ModelHeader& h, const AgentState& s, const uint64_t* now) {
  if (h.format != kModelFormat) return Status::unsupported_version;
  // Signed with our key yet naming another signer: not something the
  // analyzer produces, so refuse it rather than guess.
  if (std::memcmp(h.signer_fp, s.fp.analyzer_verify, kFingerprintBytes) != 0) {
    return Status::malformed_input;
  }
  if (h.dim != s.arms.dim() || h.n_actions != s.arms.count()) return Status::model_shape_mismatch;
  if (std::memcmp(h.codebook_fp, s.fp.codebook, kFingerprintBytes) != 0) {
    return Status::codebook_mismatch;
  }
  const bool kind_ok =
      h.kind == kKindPrivate || (h.kind == kKindRawBaseline && s.accept_baseline_models);
  if (!kind_ok) return Status::model_kind;
  if (now != nullptr && h.not_after_unix != 0 && h.not_after_unix < *now) {
    return Status::model_expired;
  }
  if (h.version < s.min_model_version || h.version <= *applied_version(s, h.kind)) {
    return Status::model_rollback;
  }
  return Status::ok;
}

// Reads the d+1 columns of arm `arm_index`, factoring A's lower-triangle
// columns into `l` (d x d) as they arrive and copying b into `b`. An
// indefinite column does not end the read: the arm's remaining columns must
// still be well formed, so a malformed arm is malformed_input wherever its
// factorisation would have failed.
Status read_arm(pb_istream_t* is, uint32_t arm_index, uint32_t d, real* l, double* b) {
  bool factored = true;
  for (uint32_t col = 0; col <= d; ++col) {
    p2b_v1_ArmColumn c = p2b_v1_ArmColumn_init_zero;
    const uint32_t expected = col < d ? d - col : d;
    if (!pb_decode_delimited(is, p2b_v1_ArmColumn_fields, &c) || c.arm != arm_index ||
        c.column != col || c.values_count != expected || !values_ok(c.values, expected, col == d)) {
      return Status::malformed_input;
    }
    if (col == d) {
      std::memcpy(b, c.values, d * sizeof(double));
    } else if (factored) {
      factored = cholesky_column(c.values, col, d, l);
    }
  }
  return factored ? Status::ok : Status::not_positive_definite;
}

// One pass over the body: checks the header, then parses, factors and
// stages every arm. Changes nothing but scratch and the staging block; on
// success `*header` is the model's header.
Status stage_model(AgentState& s, const uint8_t* body, std::size_t len, const uint64_t* now,
                   p2b_v1_ModelHeader* header) {
  pb_istream_t is = pb_istream_from_buffer(body, len);
  p2b_v1_ModelHeader h = p2b_v1_ModelHeader_init_zero;
  if (!pb_decode_delimited(&is, p2b_v1_ModelHeader_fields, &h)) return Status::malformed_input;
  const Status st = check_header(h, s, now);
  if (st != Status::ok) return st;

  const uint32_t d = s.arms.dim();
  real* factor = s.arms.scratch();
  double b[kMaxDim];
  for (uint32_t arm_index = 0; arm_index < s.arms.count(); ++arm_index) {
    const Status arm_st = read_arm(&is, arm_index, d, factor, b);
    if (arm_st != Status::ok) return arm_st;
    stage_arm(s.arms, arm_index, factor, b);
  }
  if (is.bytes_left != 0) return Status::malformed_input;
  *header = h;
  return Status::ok;
}

// `now` is the app's time in Unix seconds, or null when it has none.
Status apply_bundle(AgentState& s, const uint8_t* bundle, std::size_t len, const uint64_t* now) {
  if (bundle == nullptr) return Status::null_pointer;
  if (s.arms.dim() > kModelMaxDim) return Status::dimension_mismatch;
  if (len < sizeof kModelMagic + kSignatureBytes ||
      std::memcmp(bundle, kModelMagic, sizeof kModelMagic) != 0) {
    return Status::malformed_input;
  }
  const std::size_t signed_len = len - kSignatureBytes;
  if (s.crypto.verify(bundle + signed_len, bundle, signed_len, s.verify_pk) != 0) {
    return Status::bad_signature;
  }
  p2b_v1_ModelHeader h = p2b_v1_ModelHeader_init_zero;
  const Status st =
      stage_model(s, bundle + sizeof kModelMagic, signed_len - sizeof kModelMagic, now, &h);
  if (st != Status::ok) return st;
  commit_staged_arms(s.arms);
  *applied_version(s, h.kind) = h.version;
  return Status::ok;
}

}  // namespace

Status Agent::apply_model(const uint8_t* bundle, std::size_t len) {
  return apply_bundle(AgentState::of(this), bundle, len, nullptr);
}

Status Agent::apply_model_at(const uint8_t* bundle, std::size_t len, uint64_t now_unix) {
  return apply_bundle(AgentState::of(this), bundle, len, &now_unix);
}

Status Agent::model_version_of(uint32_t kind, uint64_t* version) const {
  if (version == nullptr) return Status::null_pointer;
  const uint64_t* v = applied_version(AgentState::of(this), kind);
  if (v == nullptr) return Status::model_kind;
  *version = *v;
  return Status::ok;
}

}  // namespace p2b
