// Randomized participation (P2B paper, section 3.1) and the privacy ledger.
// After every window of t rewarded interactions the agent flips a p-coin; on
// heads it releases one tuple of the window, on tails the window is dropped.
#include <cmath>

#include "agent_internal.hpp"
#include "p2b/agent.hpp"
#include "p2b/envelope.hpp"

namespace p2b {

bool Agent::budget_allows_one_more() const {
  // m * epsilon instead of a running sum: no drift over millions of reports.
  const double next = static_cast<double>(reports_ + 1) * epsilon_per_report_;
  return next <= epsilon_budget_ * (1.0 + 1e-12);
}

void Agent::record_interaction(uint32_t code, uint32_t action, float r) {
  static_assert(sizeof(PendingSlot) == kPendingSlotBytes, "arena layout constant is stale");
  static_assert(sizeof(WindowEntry) == kWindowEntryBytes, "arena layout constant is stale");
  WindowEntry* win = block<WindowEntry>(off_window_);
  win[window_len_] = WindowEntry{code, action, r};
  ++window_len_;
}

Status Agent::draw_window_randomness(double u[3]) {
  for (int i = 0; i < 3; ++i) {
    const Status st = rng_.uniform(&u[i]);
    if (st != Status::ok) return st;
  }
  return Status::ok;
}

void Agent::close_window(const double u[3]) {
  const WindowEntry* win = block<WindowEntry>(off_window_);
  const uint32_t n = window_len_;
  window_len_ = 0;
  ++windows_closed_;
  if (!budget_allows_one_more()) return;
  if (!(u[0] < participation_)) return;

  uint32_t n_zero = 0;
  for (uint32_t i = 0; i < n; ++i) n_zero += win[i].reward == 0.0F ? 1U : 0U;
  const uint32_t n_pos = n - n_zero;
  // Zero-reward tuple with probability neg_rate, else a positive one; fall
  // back to the other kind when the window has none of the wanted kind.
  bool want_zero = u[1] < neg_rate_;
  if (want_zero && n_zero == 0) want_zero = false;
  if (!want_zero && n_pos == 0) want_zero = true;
  const uint32_t pool = want_zero ? n_zero : n_pos;
  uint32_t pick = static_cast<uint32_t>(u[2] * pool);
  if (pick >= pool) pick = pool - 1;
  const WindowEntry* chosen = nullptr;
  for (uint32_t i = 0; i < n; ++i) {
    const bool is_zero = win[i].reward == 0.0F;
    if (is_zero != want_zero) continue;
    if (pick == 0) {
      chosen = &win[i];
      break;
    }
    --pick;
  }

  if (outbox_len_ == outbox_capacity_) {
    // Nothing leaves the device, so nothing is charged to the budget.
    ++dropped_outbox_full_;
    return;
  }
  Report* box = block<Report>(off_outbox_);
  box[(outbox_head_ + outbox_len_) % outbox_capacity_] =
      Report{chosen->code, chosen->action, chosen->reward};
  ++outbox_len_;
  ++reports_;
}

Status Agent::poll_tuple(Report* out) {
  if (out == nullptr) return Status::null_pointer;
  if (outbox_len_ == 0) {
    return budget_allows_one_more() ? Status::no_report : Status::budget_exhausted;
  }
  const Report* box = block<Report>(off_outbox_);
  *out = box[outbox_head_];
  outbox_head_ = (outbox_head_ + 1) % outbox_capacity_;
  --outbox_len_;
  return Status::ok;
}

Status Agent::poll_envelope(uint8_t* out, std::size_t cap, std::size_t* written) {
  if (out == nullptr || written == nullptr) return Status::null_pointer;
  if (outbox_len_ == 0) {
    return budget_allows_one_more() ? Status::no_report : Status::budget_exhausted;
  }
  if (cap < kEnvelopeBytes) return Status::buffer_too_small;
  // Seal the head first and dequeue only on success, so a failing crypto port
  // loses no report.
  const Report& head = block<Report>(off_outbox_)[outbox_head_];
  const SealingKeys keys{shuffler_pk_, fp_.shuffler, analyzer_pk_, fp_.analyzer};
  const TupleToSeal t{head.code, head.action, head.reward, model_version_};
  const Status st = seal_envelope(crypto_, keys, t, out);
  if (st != Status::ok) return st;
  outbox_head_ = (outbox_head_ + 1) % outbox_capacity_;
  --outbox_len_;
  *written = kEnvelopeBytes;
  return Status::ok;
}

Status Agent::fingerprints(KeyFingerprints* out) const {
  if (out == nullptr) return Status::null_pointer;
  *out = fp_;
  return Status::ok;
}

Status Agent::privacy(PrivacyLedger* out) const {
  if (out == nullptr) return Status::null_pointer;
  out->epsilon_per_report = epsilon_per_report_;
  out->epsilon_spent = static_cast<double>(reports_) * epsilon_per_report_;
  out->epsilon_budget = epsilon_budget_;
  out->reports = reports_;
  out->windows_closed = windows_closed_;
  out->dropped_outbox_full = dropped_outbox_full_;
  out->exhausted = !budget_allows_one_more();
  return Status::ok;
}

}  // namespace p2b
