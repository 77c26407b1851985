// Save/restore of an agent's learned state to a caller buffer.
//
// Layout (little-endian): "P2BS" | u16 format version | u8 sizeof(real) |
// u8 reserved | u64 config digest | u32 body length | body | u32 CRC-32 of
// everything before it. One `transfer` function walks the body for writing,
// for validating and for applying, so the three can never disagree.
#include <cmath>
#include <cstring>

#include "agent_internal.hpp"
#include "checksum.hpp"
#include "p2b/agent.hpp"
#include "ridge_arm.hpp"

namespace p2b {

namespace {

constexpr uint32_t kStateMagic = 0x53423250U;  // "P2BS"
constexpr uint16_t kStateVersion = 1;
constexpr std::size_t kHeaderBytes = 4 + 2 + 1 + 1 + 8 + 4;
constexpr std::size_t kTrailerBytes = 4;

void put_le(uint8_t* p, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint64_t get_le(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Counts bytes only.
struct Sizer {
  static constexpr bool kReads = false;
  std::size_t n = 0;
  bool ok = true;
  void u32(uint32_t&) { n += 4; }
  void u64(uint64_t&) { n += 8; }
  void f32(float&) { n += 4; }
  void scalar(float&) { n += 4; }
  void scalar(double&) { n += 8; }
  void require(bool) {}
};

struct Writer {
  static constexpr bool kReads = false;
  uint8_t* p = nullptr;
  bool ok = true;
  void u32(uint32_t& v) { put_le(p, v, 4), p += 4; }
  void u64(uint64_t& v) { put_le(p, v, 8), p += 8; }
  void f32(float& v) {
    uint32_t bits = 0;
    std::memcpy(&bits, &v, 4);
    u32(bits);
  }
  void scalar(float& v) { f32(v); }
  void scalar(double& v) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, 8);
    u64(bits);
  }
  void require(bool) {}
};

// Reads values into the references it is given. With `apply` false the caller
// passes scratch references, so a failed validation changes nothing.
struct Reader {
  static constexpr bool kReads = true;
  const uint8_t* p = nullptr;
  bool ok = true;
  void u32(uint32_t& v) { v = static_cast<uint32_t>(get_le(p, 4)), p += 4; }
  void u64(uint64_t& v) { v = get_le(p, 8), p += 8; }
  void f32(float& v) {
    const uint32_t bits = static_cast<uint32_t>(get_le(p, 4));
    std::memcpy(&v, &bits, 4);
    p += 4;
  }
  void scalar(float& v) { f32(v); }
  void scalar(double& v) {
    const uint64_t bits = get_le(p, 8);
    std::memcpy(&v, &bits, 8);
    p += 8;
  }
  void require(bool cond) { ok = ok && cond; }
};

bool finite_unit(float r) {
  return std::isfinite(r) && r >= 0.0F && r <= 1.0F;
}

}  // namespace

class StateCodec {
 public:
  // Walks the body. A reader with `apply` false validates only: scalars are
  // staged in locals and arrays are read into sinks, so nothing changes.
  template <typename Io>
  static bool transfer(Io& io, Agent& ag, bool apply) {
    const bool direct = !Io::kReads || apply;  // read from / write to the arena itself
    const uint32_t d = ag.dim_;
    Rng::State rs = ag.rng_.state();
    for (uint64_t& w : rs.s) io.u64(w);
    io.u64(rs.spare_bits);
    io.u32(rs.has_spare);
    io.u32(rs.deterministic);
    io.require(rs.deterministic == ag.rng_.state().deterministic && rs.has_spare <= 1);

    uint64_t next_id = ag.next_id_;
    uint64_t reports = ag.reports_;
    uint64_t windows_closed = ag.windows_closed_;
    uint64_t dropped = ag.dropped_outbox_full_;
    uint64_t model_version = ag.model_version_;
    uint32_t window_len = ag.window_len_;
    uint32_t outbox_head = ag.outbox_head_;
    uint32_t outbox_len = ag.outbox_len_;
    io.u64(next_id);
    io.u64(reports);
    io.u64(windows_closed);
    io.u64(dropped);
    io.u64(model_version);
    io.u32(window_len);
    io.u32(outbox_head);
    io.u32(outbox_len);
    io.require(next_id >= 1 && window_len < ag.window_ && outbox_head < ag.outbox_capacity_ &&
               outbox_len <= ag.outbox_capacity_);
    io.require(static_cast<double>(reports) * ag.epsilon_per_report_ <=
               ag.epsilon_budget_ * (1.0 + 1e-12));

    real sink_r = 0;
    auto scalar_at = [&](real* p) -> real& { return direct ? *p : sink_r; };
    for (uint32_t a = 0; a < ag.n_actions_; ++a) {
      const ArmView av = ag.arm(a);
      for (uint32_t j = 0; j < d; ++j) {
        for (uint32_t i = 0; i < d; ++i) {
          real& v = scalar_at(&av.L[j * d + i]);
          io.scalar(v);
          io.require(std::isfinite(v) && (i != j || v > real(0)) && (i >= j || v == real(0)));
        }
      }
      for (uint32_t i = 0; i < d; ++i) {
        real& v = scalar_at(&av.b[i]);
        io.scalar(v);
        io.require(std::isfinite(v));
      }
    }

    auto* slots = ag.block<Agent::PendingSlot>(ag.off_pending_);
    Agent::PendingSlot sink_slot{};
    for (uint32_t s = 0; s < ag.pending_capacity_; ++s) {
      Agent::PendingSlot& slot = direct ? slots[s] : sink_slot;
      io.u64(slot.id);
      io.u32(slot.action);
      io.u32(slot.code);
      io.u32(slot.state);
      if (Io::kReads) {
        const bool live = slot.state != kSlotEmpty;
        io.require(slot.state <= kSlotRewarded && slot.action < ag.n_actions_ &&
                   slot.code < ag.n_codes_);
        io.require(!live ||
                   (slot.id > 0 && slot.id < next_id && slot.id % ag.pending_capacity_ == s &&
                    next_id - slot.id <= ag.pending_capacity_));
      }
      real* x = ag.pending_x(s);
      for (uint32_t i = 0; i < d; ++i) {
        real& v = scalar_at(&x[i]);
        io.scalar(v);
        io.require(std::isfinite(v) && v >= real(0));
      }
    }

    auto* win = ag.block<Agent::WindowEntry>(ag.off_window_);
    Agent::WindowEntry sink_entry{};
    for (uint32_t s = 0; s < ag.window_; ++s) {
      Agent::WindowEntry& e = direct ? win[s] : sink_entry;
      io.u32(e.code);
      io.u32(e.action);
      io.f32(e.reward);
      io.require(e.code < ag.n_codes_ && e.action < ag.n_actions_ && finite_unit(e.reward));
    }
    auto* box = ag.block<Report>(ag.off_outbox_);
    Report sink_report{};
    for (uint32_t s = 0; s < ag.outbox_capacity_; ++s) {
      Report& rep = direct ? box[s] : sink_report;
      io.u32(rep.code);
      io.u32(rep.action);
      io.f32(rep.reward);
      io.require(rep.code < ag.n_codes_ && rep.action < ag.n_actions_ && finite_unit(rep.reward));
    }

    if (Io::kReads && apply) {
      ag.rng_.set_state(rs);
      ag.next_id_ = next_id;
      ag.reports_ = reports;
      ag.windows_closed_ = windows_closed;
      ag.dropped_outbox_full_ = dropped;
      ag.model_version_ = model_version;
      ag.window_len_ = window_len;
      ag.outbox_head_ = outbox_head;
      ag.outbox_len_ = outbox_len;
      real* work = ag.block<real>(ag.off_scratch_);
      for (uint32_t a = 0; a < ag.n_actions_; ++a) arm_refresh_theta(ag.arm(a), work);
    }
    return io.ok;
  }

  static std::size_t body_size(const Agent& ag) {
    Sizer s;
    transfer(s, const_cast<Agent&>(ag), false);
    return s.n;
  }
};

Status Agent::saved_size(std::size_t* bytes) const {
  if (bytes == nullptr) return Status::null_pointer;
  *bytes = kHeaderBytes + StateCodec::body_size(*this) + kTrailerBytes;
  return Status::ok;
}

Status Agent::save(void* buf, std::size_t cap, std::size_t* written) const {
  if (buf == nullptr || written == nullptr) return Status::null_pointer;
  std::size_t total = 0;
  saved_size(&total);
  if (cap < total) return Status::buffer_too_small;
  auto* out = static_cast<uint8_t*>(buf);
  const std::size_t body = total - kHeaderBytes - kTrailerBytes;
  put_le(out, kStateMagic, 4);
  put_le(out + 4, kStateVersion, 2);
  out[6] = static_cast<uint8_t>(sizeof(real));
  out[7] = 0;
  put_le(out + 8, config_digest_, 8);
  put_le(out + 16, body, 4);
  Writer w{out + kHeaderBytes};
  StateCodec::transfer(w, const_cast<Agent&>(*this), false);
  put_le(out + total - kTrailerBytes, crc32(out, total - kTrailerBytes), 4);
  *written = total;
  return Status::ok;
}

Status Agent::restore(const void* buf, std::size_t len) {
  if (buf == nullptr) return Status::null_pointer;
  const auto* in = static_cast<const uint8_t*>(buf);
  if (len < kHeaderBytes + kTrailerBytes) return Status::corrupt_state;
  if (get_le(in, 4) != kStateMagic) return Status::corrupt_state;
  if (get_le(in + len - kTrailerBytes, 4) != crc32(in, len - kTrailerBytes)) {
    return Status::corrupt_state;
  }
  if (get_le(in + 4, 2) != kStateVersion) return Status::unsupported_version;
  if (in[6] != sizeof(real) || get_le(in + 8, 8) != config_digest_) return Status::state_mismatch;
  std::size_t expected = 0;
  saved_size(&expected);
  if (len != expected || get_le(in + 16, 4) != expected - kHeaderBytes - kTrailerBytes) {
    return Status::corrupt_state;
  }
  Reader check{in + kHeaderBytes};
  if (!StateCodec::transfer(check, *this, false)) return Status::corrupt_state;
  Reader apply{in + kHeaderBytes};
  StateCodec::transfer(apply, *this, true);
  return Status::ok;
}

}  // namespace p2b
