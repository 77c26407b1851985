// Randomized participation (P2B paper, section 3.1), the outbox and the
// privacy ledger. After every window of t rewarded interactions a p-coin
// decides whether one tuple of the window is released to the outbox; each
// release is charged epsilon(p) against the budget.
#pragma once

#include <cstdint>

#include "arena_layout.hpp"
#include "codebook.hpp"
#include "p2b/agent.hpp"
#include "random.hpp"
#include "relative_ptr.hpp"

namespace p2b {

// A rewarded interaction of the current window. Its code is computed only if
// the window releases it: the choice of tuple never depends on the code, so
// encoding the one released tuple gives the same reports as encoding all of
// them, at a t-th of the cost (or none, with probability 1 - p). Until then
// the entry holds its normalised context in the arena (context_pending = 1);
// an entry restored from a saved state, or never written, has its code.
struct WindowEntry {
  uint32_t code;
  uint32_t action;
  float reward;
  uint32_t context_pending;
};

// Where the reporter stands; saved and restored with the agent.
struct ReporterProgress {
  uint32_t window_len;
  uint32_t outbox_head;
  uint32_t outbox_len;
  uint64_t reports;  // tuples released to the outbox
  uint64_t windows_closed;
  uint64_t dropped_outbox_full;
};

class Reporter {
 public:
  // Empty window and outbox (the arena is zeroed), nothing charged yet.
  void init(const Config& cfg, char* arena, const ArenaLayout& layout);

  uint32_t window_size() const { return window_; }
  uint32_t outbox_capacity() const { return outbox_capacity_; }

  bool next_interaction_closes_window() const { return window_len_ + 1 == window_; }
  // The three uniforms close_window needs, drawn before anything changes so
  // that a failing random source leaves the agent as it was.
  static Status draw_window_randomness(Rng& rng, double u[3]);
  // Adds a rewarded interaction on normalised context `xn`; the window must
  // not be full.
  void record(uint32_t action, float reward, const real* xn);
  // Ends the (full) window: the p-coin u[0], the kind of tuple u[1], which
  // one of that kind u[2]; encodes the released tuple's context only.
  void close_window(const double u[3], const Codebook& codebook);

  // ok with the oldest report, else no_report or (empty and spent)
  // budget_exhausted.
  Status head(const Report** out) const;
  void pop();

  PrivacyLedger ledger() const;

  // Empties the window and the outbox; the ledger is kept.
  void clear();

  // Save and restore.
  ReporterProgress progress() const;
  const WindowEntry& window_entry(uint32_t i) const { return window_entries_.get()[i]; }
  // Entry i's code, encoding its context if it is still pending: what an
  // eager encoder would have stored there.
  uint32_t window_code(uint32_t i, const Codebook& codebook) const;
  const Report& outbox_entry(uint32_t i) const { return outbox_.get()[i]; }
  // True when `p` is a state this reporter could be in.
  bool progress_consistent(const ReporterProgress& p) const;
  void restore(const ReporterProgress& p);
  // A restored entry carries its code, not its context.
  void restore_window_entry(uint32_t i, uint32_t code, uint32_t action, float reward) {
    window_entries_.get()[i] = WindowEntry{code, action, reward, 0};
  }
  void restore_outbox_entry(uint32_t i, const Report& r) { outbox_.get()[i] = r; }

 private:
  bool budget_allows(uint64_t reports) const;
  // The tuple of the first `n` window entries to release.
  const WindowEntry* pick_tuple(uint32_t n, const double u[3]) const;

  uint32_t window_ = 0;  // t
  uint32_t dim_ = 0;
  uint32_t window_len_ = 0;
  uint32_t outbox_capacity_ = 0;
  uint32_t outbox_head_ = 0;
  uint32_t outbox_len_ = 0;
  double participation_ = 0;  // p
  double neg_rate_ = 0;
  double epsilon_budget_ = 0;
  double epsilon_per_report_ = 0;
  uint64_t reports_ = 0;
  uint64_t windows_closed_ = 0;
  uint64_t dropped_outbox_full_ = 0;
  RelativePtr<WindowEntry> window_entries_;
  RelativePtr<real> window_x_;  // window_ x dim_ normalised contexts
  RelativePtr<Report> outbox_;
};

}  // namespace p2b
