#include "reporter.hpp"

#include <cstring>

namespace p2b {

void Reporter::init(const Config& cfg, char* arena, const ArenaLayout& layout) {
  window_ = cfg.window;
  dim_ = cfg.dim;
  outbox_capacity_ = cfg.outbox_capacity;
  participation_ = cfg.participation;
  neg_rate_ = cfg.neg_rate;
  epsilon_budget_ = cfg.epsilon_budget;
  epsilon_per_report_ = epsilon_per_report(cfg.participation);
  window_entries_.set(reinterpret_cast<WindowEntry*>(arena + layout.window));
  window_x_.set(reinterpret_cast<real*>(arena + layout.window_x));
  outbox_.set(reinterpret_cast<Report*>(arena + layout.outbox));
}

bool Reporter::budget_allows(uint64_t reports) const {
  // m * epsilon instead of a running sum: no drift over millions of reports.
  return static_cast<double>(reports) * epsilon_per_report_ <= epsilon_budget_ * (1.0 + 1e-12);
}

Status Reporter::draw_window_randomness(Rng& rng, double u[3]) {
  for (int i = 0; i < 3; ++i) {
    const Status st = rng.uniform(&u[i]);
    if (st != Status::ok) return st;
  }
  return Status::ok;
}

void Reporter::record(uint32_t action, float reward, const real* xn) {
  window_entries_.get()[window_len_] = WindowEntry{0, action, reward, 1};
  std::memcpy(window_x_.get() + static_cast<std::size_t>(window_len_) * dim_, xn,
              dim_ * sizeof(real));
  ++window_len_;
}

uint32_t Reporter::window_code(uint32_t i, const Codebook& codebook) const {
  const WindowEntry& e = window_entries_.get()[i];
  if (e.context_pending == 0) return e.code;
  return codebook.encode(window_x_.get() + static_cast<std::size_t>(i) * dim_);
}

// A zero-reward tuple with probability neg_rate, else a positive one; falls
// back to the other kind when the window has none of the wanted kind.
const WindowEntry* Reporter::pick_tuple(uint32_t n, const double u[3]) const {
  const WindowEntry* win = window_entries_.get();
  uint32_t n_zero = 0;
  for (uint32_t i = 0; i < n; ++i) n_zero += win[i].reward == 0.0F ? 1U : 0U;
  const uint32_t n_pos = n - n_zero;
  bool want_zero = u[1] < neg_rate_;
  if (want_zero && n_zero == 0) want_zero = false;
  if (!want_zero && n_pos == 0) want_zero = true;
  const uint32_t pool = want_zero ? n_zero : n_pos;
  uint32_t pick = static_cast<uint32_t>(u[2] * pool);
  if (pick >= pool) pick = pool - 1;
  for (uint32_t i = 0; i < n; ++i) {
    const bool is_zero = win[i].reward == 0.0F;
    if (is_zero != want_zero) continue;
    if (pick == 0) return &win[i];
    --pick;
  }
  return nullptr;  // unreachable: pool > 0 entries of the wanted kind exist
}

void Reporter::close_window(const double u[3], const Codebook& codebook) {
  const uint32_t n = window_len_;
  window_len_ = 0;
  ++windows_closed_;
  if (!budget_allows(reports_ + 1)) return;
  if (!(u[0] < participation_)) return;
  const WindowEntry* chosen = pick_tuple(n, u);
  if (outbox_len_ == outbox_capacity_) {
    // Nothing leaves the device, so nothing is charged to the budget.
    ++dropped_outbox_full_;
    return;
  }
  const auto index = static_cast<uint32_t>(chosen - window_entries_.get());
  outbox_.get()[(outbox_head_ + outbox_len_) % outbox_capacity_] =
      Report{window_code(index, codebook), chosen->action, chosen->reward};
  ++outbox_len_;
  ++reports_;
}

Status Reporter::head(const Report** out) const {
  if (outbox_len_ == 0) {
    return budget_allows(reports_ + 1) ? Status::no_report : Status::budget_exhausted;
  }
  *out = &outbox_.get()[outbox_head_];
  return Status::ok;
}

void Reporter::pop() {
  outbox_head_ = (outbox_head_ + 1) % outbox_capacity_;
  --outbox_len_;
}

PrivacyLedger Reporter::ledger() const {
  PrivacyLedger l{};
  l.epsilon_per_report = epsilon_per_report_;
  l.epsilon_spent = static_cast<double>(reports_) * epsilon_per_report_;
  l.epsilon_budget = epsilon_budget_;
  l.reports = reports_;
  l.windows_closed = windows_closed_;
  l.dropped_outbox_full = dropped_outbox_full_;
  l.exhausted = !budget_allows(reports_ + 1);
  return l;
}

void Reporter::clear() {
  std::memset(window_entries_.get(), 0, window_ * sizeof(WindowEntry));
  std::memset(window_x_.get(), 0, static_cast<std::size_t>(window_) * dim_ * sizeof(real));
  std::memset(outbox_.get(), 0, outbox_capacity_ * sizeof(Report));
  window_len_ = 0;
  outbox_head_ = 0;
  outbox_len_ = 0;
}

ReporterProgress Reporter::progress() const {
  return ReporterProgress{window_len_, outbox_head_,    outbox_len_,
                          reports_,    windows_closed_, dropped_outbox_full_};
}

bool Reporter::progress_consistent(const ReporterProgress& p) const {
  return p.window_len < window_ && p.outbox_head < outbox_capacity_ &&
         p.outbox_len <= outbox_capacity_ && budget_allows(p.reports);
}

void Reporter::restore(const ReporterProgress& p) {
  window_len_ = p.window_len;
  outbox_head_ = p.outbox_head;
  outbox_len_ = p.outbox_len;
  reports_ = p.reports;
  windows_closed_ = p.windows_closed;
  dropped_outbox_full_ = p.dropped_outbox_full;
}

}  // namespace p2b
