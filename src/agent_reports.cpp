// The reporting entry points: the outbox's head sealed or in plaintext, the
// privacy ledger, and the key fingerprints the envelopes carry.
#include "agent_state.hpp"
#include "p2b/envelope.hpp"

namespace p2b {

Status Agent::poll_tuple(Report* out) {
  if (out == nullptr) return Status::null_pointer;
  Reporter& reporter = AgentState::of(this).reporter;
  const Report* head = nullptr;
  const Status st = reporter.head(&head);
  if (st != Status::ok) return st;
  *out = *head;
  reporter.pop();
  return Status::ok;
}

Status Agent::poll_envelope(uint8_t* out, std::size_t cap, std::size_t* written) {
  if (out == nullptr || written == nullptr) return Status::null_pointer;
  AgentState& s = AgentState::of(this);
  const Report* head = nullptr;
  Status st = s.reporter.head(&head);
  if (st != Status::ok) return st;
  if (cap < kEnvelopeBytes) return Status::buffer_too_small;
  // Seal the head first and dequeue only on success, so a failing crypto port
  // loses no report.
  const SealingKeys keys{s.shuffler_pk, s.fp.shuffler, s.analyzer_pk, s.fp.analyzer};
  const TupleToSeal t{head->code, head->action, head->reward, s.model_version};
  st = seal_envelope(s.crypto, keys, t, out);
  if (st != Status::ok) return st;
  s.reporter.pop();
  *written = kEnvelopeBytes;
  return Status::ok;
}

Status Agent::fingerprints(KeyFingerprints* out) const {
  if (out == nullptr) return Status::null_pointer;
  *out = AgentState::of(this).fp;
  return Status::ok;
}

Status Agent::privacy(PrivacyLedger* out) const {
  if (out == nullptr) return Status::null_pointer;
  *out = AgentState::of(this).reporter.ledger();
  return Status::ok;
}

}  // namespace p2b
