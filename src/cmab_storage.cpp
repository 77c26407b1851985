// Saved state of a P-FCB agent (docs/formats.md, "P-FCB agent state"): a
// fixed little-endian layout under the keyed MAC the other saved states use,
// with its own label. Everything the agent learned and spent travels: its
// counts, the unreleased increments, the release count the accountant reads,
// the waiting share, the per-sender replay counters and the random stream.
// Restore parses twice, checking, then applying, so a refused state leaves
// the agent exactly as it was.
#include <array>
#include <cmath>
#include <cstring>
#include <initializer_list>

#include "cmab_state.hpp"
#include "le_bytes.hpp"
#include "state_mac.hpp"

namespace p2b {

namespace {

constexpr uint8_t kMagic[4] = {'P', '2', 'B', 'C'};
constexpr uint32_t kFormat = 1;
constexpr char kMacLabel[] = "p2b cmab state MAC key v1";

// magic, format, m, P; the config (9 f64, 3 u64, 6 u32); the generator
// (2 u32, 5 u64); progress (5 u64, 4 u32); the waiting share's head (2 u32,
// u64, f64).
constexpr std::size_t kFixedBytes =
    4 + 4 + 2 * 4 + (9 * 8 + 3 * 8 + 6 * 4) + (2 * 4 + 5 * 8) + (5 * 8 + 4 * 4) + (2 * 4 + 8 + 8);
// Per producer: the share's two noisy values, cost, capacity, W, Y, w, y,
// and the units decided.
constexpr std::size_t kPerProducer = 4 + 4 + 8 + 4 + 4 * 8 + 4;
constexpr std::size_t kPerPeer = 4;

std::size_t body_bytes(uint32_t producers, uint32_t peers) {
  return kFixedBytes + kPerProducer * producers + kPerPeer * peers;
}

// The config's fields in the format's order, each group as one type:
// std::array rather than a braced list, whose element type would be deduced
// (and differ: on newlib uint32_t is unsigned long, not unsigned int).
std::array<double, 9> config_doubles(const CmabConfig& c) {
  return {c.rho,   c.alpha,        c.quality_margin, c.ucb_scale, c.epsilon,
          c.delta, c.delta_target, c.omega1,         c.omega2};
}
std::array<uint64_t, 3> config_u64s(const CmabConfig& c) {
  return {c.horizon, c.window_start, c.window_stop};
}
std::array<uint32_t, 6> config_u32s(const CmabConfig& c) {
  return {c.explore_rounds,
          static_cast<uint32_t>(c.schedule),
          static_cast<uint32_t>(c.log_base),
          c.public_max_capacity,
          c.agents,
          c.deterministic ? uint32_t{1} : uint32_t{0}};
}

void write_config(LeWriter& w, const CmabState& s) {
  for (const double v : config_doubles(s.cfg)) w.f64(v);
  for (const uint64_t v : config_u64s(s.cfg)) w.u64(v);
  for (const uint32_t v : config_u32s(s.cfg)) w.u32(v);
}

// Reads the config fields in write_config's order; true when every one is
// the agent's own. Bitwise for doubles, so an infinite budget matches itself.
bool same_config(LeReader& in, const CmabState& s) {
  bool same = true;
  for (const double v : config_doubles(s.cfg)) {
    const uint64_t saved = in.u64();
    uint64_t own = 0;
    std::memcpy(&own, &v, sizeof own);
    same = saved == own && same;
  }
  for (const uint64_t v : config_u64s(s.cfg)) same = in.u64() == v && same;
  for (const uint32_t v : config_u32s(s.cfg)) same = in.u32() == v && same;
  return same;
}

void write_body(const CmabState& s, uint8_t* out) {
  const uint32_t m = s.cfg.producers;
  LeWriter w(out);
  w.bytes(kMagic, sizeof kMagic);
  w.u32(kFormat);
  w.u32(m);
  w.u32(s.cfg.max_peers);
  write_config(w, s);
  const Rng::State r = s.rng.state();
  w.u32(r.deterministic);
  w.u32(r.has_spare);
  for (const uint64_t word : r.s) w.u64(word);
  w.u64(r.spare_bits);
  for (const uint64_t v :
       {s.rounds, s.tau, s.shares_overwritten, s.reports_accepted, s.reports_rejected}) {
    w.u64(v);
  }
  for (const bool flag : {s.budget_stopped, s.decided, s.share_waiting}) w.u32(flag ? 1U : 0U);
  w.u32(s.releases);
  w.u32(s.pending.producers);
  w.u32(s.pending.release);
  w.u64(s.pending.round);
  w.f64(s.pending.release_epsilon);
  for (uint32_t i = 0; i < m; ++i) {
    w.i32(s.pending.w_noisy[i]);
    w.i32(s.pending.y_noisy[i]);
    w.f64(s.block<double>(s.cost)[i]);
    w.u32(s.block<uint32_t>(s.capacity)[i]);
    for (const std::size_t block : {s.units_seen, s.good_seen, s.units_unsent, s.good_unsent}) {
      w.f64(s.block<double>(block)[i]);
    }
    w.u32(s.block<uint32_t>(s.decision)[i]);
  }
  const uint32_t* last = s.block<uint32_t>(s.last_release);
  for (uint32_t p = 0; p < s.cfg.max_peers; ++p) w.u32(last[p]);
}

// Everything besides the per-producer and per-peer tables.
struct Progress {
  Rng::State rng{};
  uint64_t rounds = 0;
  uint64_t tau = 0;
  uint64_t shares_overwritten = 0;
  uint64_t reports_accepted = 0;
  uint64_t reports_rejected = 0;
  uint32_t flags[3] = {};  // budget_stopped, decided, share_waiting
  uint32_t releases = 0;
  CmabShare pending{};
};

// A whole count the agent's own rounds could have made, below 2^53.
bool whole_count(double v) {
  return std::isfinite(v) && v >= 0.0 && v <= 9007199254740992.0 && std::floor(v) == v;
}

Status read_progress(LeReader& in, const CmabState& s, Progress* p) {
  p->rng.deterministic = in.u32();
  p->rng.has_spare = in.u32();
  for (uint64_t& word : p->rng.s) word = in.u64();
  p->rng.spare_bits = in.u64();
  for (uint64_t* v :
       {&p->rounds, &p->tau, &p->shares_overwritten, &p->reports_accepted, &p->reports_rejected}) {
    *v = in.u64();
  }
  for (uint32_t& flag : p->flags) flag = in.u32();
  p->releases = in.u32();
  p->pending.producers = in.u32();
  p->pending.release = in.u32();
  p->pending.round = in.u64();
  p->pending.release_epsilon = in.f64();
  if (p->rng.deterministic != (s.cfg.deterministic ? 1U : 0U)) return Status::state_mismatch;
  // tau follows from the rounds played (every scheduled round advances it,
  // released or not), and releases happen only at scheduled rounds.
  const CmabConfig& c = s.cfg;
  const uint32_t scheduled =
      cmab_release_count(c.schedule, c.window_start, c.window_stop, p->rounds);
  uint64_t tau = cmab_first_tau(c.schedule, c.window_start);
  for (uint32_t k = 0; c.schedule != CmabSchedule::every_round && k < scheduled; ++k) {
    tau = cmab_next_tau(c.schedule, tau);
  }
  bool ok = Rng::restorable(p->rng) && p->releases <= scheduled && p->tau == tau;
  for (const uint32_t flag : p->flags) ok = ok && flag <= 1;
  // The share last drawn is release `releases` of a completed round; one
  // waits only if one was drawn.
  const CmabShare& sh = p->pending;
  const bool drawn = sh.producers == s.cfg.producers && sh.release == p->releases &&
                     sh.release >= 1 && sh.round >= 1 && sh.round <= p->rounds &&
                     !std::isnan(sh.release_epsilon) && sh.release_epsilon >= 0.0;
  const bool none = sh.producers == 0 && sh.release == 0 && sh.round == 0 &&
                    sh.release_epsilon == 0.0 && p->releases == 0;
  ok = ok && (drawn || none) && (p->flags[2] == 0 || drawn);
  return ok ? Status::ok : Status::corrupt_state;
}

// Reads the tables; writes them only when `apply`. The arrays of a share
// that never was must be zero, as init left them.
Status read_tables(LeReader& in, CmabState& s, const Progress& p, bool apply) {
  const uint32_t m = s.cfg.producers;
  for (uint32_t i = 0; i < m; ++i) {
    const int32_t wn = in.i32();
    const int32_t yn = in.i32();
    const double cost = in.f64();
    const uint32_t capacity = in.u32();
    const double seen = in.f64();
    const double good_seen = in.f64();
    const double unsent = in.f64();
    const double good_unsent = in.f64();
    const uint32_t decided = in.u32();
    // The config's own cost and capacity: another instance is another config.
    if (!(cost == s.block<double>(s.cost)[i]) || capacity != s.block<uint32_t>(s.capacity)[i]) {
      return Status::state_mismatch;
    }
    const bool counts_ok = std::isfinite(seen) && seen >= 0.0 && std::isfinite(good_seen) &&
                           good_seen >= 0.0 && whole_count(unsent) && whole_count(good_unsent) &&
                           good_unsent <= unsent &&
                           unsent <= static_cast<double>(p.rounds) * capacity;
    const bool share_ok = p.pending.producers != 0 || (wn == 0 && yn == 0);
    if (!counts_ok || !share_ok || decided > capacity) return Status::corrupt_state;
    if (apply) {
      s.pending.w_noisy[i] = wn;
      s.pending.y_noisy[i] = yn;
      s.block<double>(s.units_seen)[i] = seen;
      s.block<double>(s.good_seen)[i] = good_seen;
      s.block<double>(s.units_unsent)[i] = unsent;
      s.block<double>(s.good_unsent)[i] = good_unsent;
      s.block<uint32_t>(s.decision)[i] = decided;
    }
  }
  uint32_t* last = s.block<uint32_t>(s.last_release);
  for (uint32_t peer = 0; peer < s.cfg.max_peers; ++peer) {
    const uint32_t v = in.u32();
    if (apply) last[peer] = v;
  }
  return Status::ok;
}

Status decode(const uint8_t* body, CmabState& s, bool apply) {
  LeReader in(body + sizeof kMagic);
  if (in.u32() != kFormat) return Status::unsupported_version;
  const bool same_shape = in.u32() == s.cfg.producers && in.u32() == s.cfg.max_peers;
  const bool same = same_config(in, s);
  if (!same_shape || !same) return Status::state_mismatch;
  Progress p;
  Status st = read_progress(in, s, &p);
  if (st != Status::ok) return st;
  st = read_tables(in, s, p, apply);
  if (st != Status::ok) return st;
  if (apply) {
    s.rng.set_state(p.rng);
    s.rounds = p.rounds;
    s.tau = p.tau;
    s.shares_overwritten = p.shares_overwritten;
    s.reports_accepted = p.reports_accepted;
    s.reports_rejected = p.reports_rejected;
    s.budget_stopped = p.flags[0] != 0;
    s.decided = p.flags[1] != 0;
    s.share_waiting = p.flags[2] != 0;
    s.releases = p.releases;
    s.pending.producers = p.pending.producers;
    s.pending.release = p.pending.release;
    s.pending.round = p.pending.round;
    s.pending.release_epsilon = p.pending.release_epsilon;
  }
  return Status::ok;
}

Status live(const CmabAgent* a) {
  if (a == nullptr) return Status::null_pointer;
  return CmabAgent::check(a);
}

}  // namespace

Status CmabAgent::saved_size(std::size_t* bytes) const {
  const Status st = live(this);
  if (is_error(st)) return st;
  if (bytes == nullptr) return Status::null_pointer;
  const CmabState& s = CmabState::of(this);
  *bytes = body_bytes(s.cfg.producers, s.cfg.max_peers) + kStateMacBytes;
  return Status::ok;
}

Status CmabAgent::save(const uint8_t* key, void* buf, std::size_t cap, std::size_t* written) const {
  const Status st = live(this);
  if (is_error(st)) return st;
  if (key == nullptr || buf == nullptr || written == nullptr) return Status::null_pointer;
  const CmabState& s = CmabState::of(this);
  const std::size_t body = body_bytes(s.cfg.producers, s.cfg.max_peers);
  if (cap < body + kStateMacBytes) return Status::buffer_too_small;
  auto* out = static_cast<uint8_t*>(buf);
  write_body(s, out);
  state_mac(key, kMacLabel, out, body, out + body);
  *written = body + kStateMacBytes;
  return Status::ok;
}

Status CmabAgent::restore(const uint8_t* key, const void* buf, std::size_t len) {
  const Status live_st = live(this);
  if (is_error(live_st)) return live_st;
  if (key == nullptr || buf == nullptr) return Status::null_pointer;
  CmabState& s = CmabState::of(this);
  const auto* in = static_cast<const uint8_t*>(buf);
  if (len < sizeof kMagic + 4 + kStateMacBytes || std::memcmp(in, kMagic, sizeof kMagic) != 0) {
    return Status::corrupt_state;
  }
  uint8_t mac[kStateMacBytes];
  state_mac(key, kMacLabel, in, len - kStateMacBytes, mac);
  // A wrong key and an edit look alike by design.
  if (!same_bytes(mac, in + len - kStateMacBytes, kStateMacBytes)) return Status::corrupt_state;
  // Authentic from here: a length of another shape is another configuration
  // (or format), not damage.
  if (LeReader(in + sizeof kMagic).u32() != kFormat) return Status::unsupported_version;
  if (len != body_bytes(s.cfg.producers, s.cfg.max_peers) + kStateMacBytes) {
    return Status::state_mismatch;
  }
  const Status st = decode(in, s, false);
  if (st != Status::ok) return st;
  return decode(in, s, true);
}

}  // namespace p2b
