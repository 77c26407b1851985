// Applying a signed shuffler-key list to an agent: the signature is checked
// before a single field is read, every check runs before anything changes,
// and the fingerprints are computed into locals first, so a refused list (or
// a failing crypto port) leaves the agent exactly as it was.
#include <cstring>

#include "agent_state.hpp"
#include "p2b/envelope.hpp"

namespace p2b {

namespace {

Status check_list(const AgentState& s, const KeyList& l, uint64_t now_unix) {
  // Signed with our key yet naming another signer: not something the
  // analyzer produces, so refuse it rather than guess (as for models).
  if (std::memcmp(l.signer_fp, s.fp.analyzer_verify, kFingerprintBytes) != 0) {
    return Status::malformed_input;
  }
  if (l.not_after_unix != 0 && l.not_after_unix < now_unix) return Status::key_list_expired;
  if (l.version <= s.key_list_version) return Status::key_list_rollback;
  return Status::ok;
}

}  // namespace

Status Agent::apply_key_list(const uint8_t* list, std::size_t len, uint64_t now_unix) {
  if (list == nullptr) return Status::null_pointer;
  AgentState& s = AgentState::of(this);
  if (len != kKeyListBytes) return Status::malformed_input;
  if (s.crypto.verify(list + kKeyListSignedBytes, list, kKeyListSignedBytes, s.verify_pk) != 0) {
    return Status::bad_signature;
  }
  KeyList l{};
  Status st = parse_key_list(list, len, &l);
  if (st == Status::ok) st = check_list(s, l, now_unix);
  if (st != Status::ok) return st;

  // The current key leads, then the others in list order.
  uint8_t fps[kKeyListMaxKeys][kFingerprintBytes] = {};
  for (uint32_t i = 0, slot = 1; i < l.count; ++i) {
    uint8_t* fp = i == l.current ? fps[0] : fps[slot++];
    if (key_fingerprint(s.crypto, l.keys[i], fp) != Status::ok) return Status::crypto_failure;
  }
  std::memcpy(s.shuffler_pk, l.keys[l.current], kPublicKeyBytes);
  std::memcpy(s.fp.shuffler, fps[0], kFingerprintBytes);
  std::memcpy(s.accepted_shuffler_fp, fps, sizeof fps);
  s.key_list_version = l.version;
  return Status::ok;
}

uint64_t Agent::key_list_version() const {
  return AgentState::of(this).key_list_version;
}

Status Agent::envelope_key_accepted(const uint8_t* envelope, std::size_t len) const {
  if (envelope == nullptr) return Status::null_pointer;
  if (len != kEnvelopeBytes) return Status::malformed_input;
  const AgentState& s = AgentState::of(this);
  // The outer layer's key fingerprint leads the envelope, in clear.
  for (const uint8_t* fp : s.accepted_shuffler_fp) {
    bool used = false;
    for (std::size_t i = 0; i < kFingerprintBytes; ++i) used = used || fp[i] != 0;
    if (used && std::memcmp(fp, envelope, kFingerprintBytes) == 0) return Status::ok;
  }
  return Status::key_retired;
}

}  // namespace p2b
