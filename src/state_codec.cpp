// Save/restore of an agent's learned state (proto/p2b_state.proto):
//
//   "P2BS" | StateHeader | K*(d+1) StateColumn | pending PendingDecision
//          | window Interaction | outbox Interaction | BLAKE2b-256 of all before
//
// every message length-delimited, every field required and fixed-width, so
// the size is a function of the configuration alone. Restore checks the
// integrity hash, then decodes twice: once validating every value without
// touching the agent, once applying. Encrypted at rest, the same bytes sit in
// an XChaCha20-Poly1305 box behind "P2BE" and a random nonce.
#include <pb_decode.h>
#include <pb_encode.h>

#include <cmath>
#include <cstring>

#include "agent_internal.hpp"
#include "p2b/agent.hpp"
#include "p2b_state.pb.h"
#include "ridge_arm.hpp"

namespace p2b {

namespace {

constexpr uint8_t kPlainMagic[4] = {'P', '2', 'B', 'S'};
constexpr uint8_t kSealedMagic[4] = {'P', '2', 'B', 'E'};
constexpr uint32_t kStateFormat = 2;
constexpr std::size_t kHashBytes = 32;
constexpr std::size_t kSealedOverhead = sizeof kSealedMagic + kAeadNonceBytes + kAeadTagBytes;

bool finite_unit(float r) {
  return std::isfinite(r) && r >= 0.0F && r <= 1.0F;
}

}  // namespace

class StateCodec {
 public:
  // Writes the plain state (without the hash) through `os`, which may be a
  // sizing stream.
  static bool encode(pb_ostream_t* os, const Agent& ag) {
    if (!pb_write(os, kPlainMagic, sizeof kPlainMagic)) return false;
    const Rng::State rs = ag.rng_.state();
    p2b_v1_StateHeader h = p2b_v1_StateHeader_init_zero;
    h.format = kStateFormat;
    h.scalar_bytes = sizeof(real);
    h.config_digest = ag.config_digest_;
    h.next_id = ag.next_id_;
    h.reports = ag.reports_;
    h.windows_closed = ag.windows_closed_;
    h.dropped_outbox_full = ag.dropped_outbox_full_;
    h.model_version = ag.model_version_;
    h.window_len = ag.window_len_;
    h.outbox_head = ag.outbox_head_;
    h.outbox_len = ag.outbox_len_;
    std::memcpy(h.rng_state, rs.s, sizeof rs.s);
    h.rng_spare_bits = rs.spare_bits;
    h.rng_has_spare = rs.has_spare;
    h.rng_deterministic = rs.deterministic;
    if (!pb_encode_delimited(os, p2b_v1_StateHeader_fields, &h)) return false;

    const uint32_t d = ag.dim_;
    for (uint32_t a = 0; a < ag.n_actions_; ++a) {
      const ArmView av = ag.arm(a);
      for (uint32_t col = 0; col <= d; ++col) {
        p2b_v1_StateColumn c = p2b_v1_StateColumn_init_zero;
        c.arm = a;
        c.column = col;
        const real* src = col < d ? av.L + static_cast<std::size_t>(col) * d + col : av.b;
        c.values_count = static_cast<pb_size_t>(col < d ? d - col : d);
        for (pb_size_t i = 0; i < c.values_count; ++i) c.values[i] = src[i];
        if (!pb_encode_delimited(os, p2b_v1_StateColumn_fields, &c)) return false;
      }
    }
    const auto* slots = ag.block<Agent::PendingSlot>(ag.off_pending_);
    for (uint32_t s = 0; s < ag.pending_capacity_; ++s) {
      p2b_v1_PendingDecision p = p2b_v1_PendingDecision_init_zero;
      p.id = slots[s].id;
      p.action = slots[s].action;
      p.code = slots[s].code;
      p.state = slots[s].state;
      p.context_count = static_cast<pb_size_t>(d);
      const real* x = ag.pending_x(s);
      for (uint32_t i = 0; i < d; ++i) p.context[i] = x[i];
      if (!pb_encode_delimited(os, p2b_v1_PendingDecision_fields, &p)) return false;
    }
    const auto* win = ag.block<Agent::WindowEntry>(ag.off_window_);
    for (uint32_t s = 0; s < ag.window_; ++s) {
      if (!write_interaction(os, win[s].code, win[s].action, win[s].reward)) return false;
    }
    const auto* box = ag.block<Report>(ag.off_outbox_);
    for (uint32_t s = 0; s < ag.outbox_capacity_; ++s) {
      if (!write_interaction(os, box[s].code, box[s].action, box[s].reward)) return false;
    }
    return true;
  }

  // Decodes the body after the magic. With `apply` false nothing in the
  // agent changes; the caller runs it once more with `apply` true.
  static Status decode(const uint8_t* body, std::size_t len, Agent& ag, bool apply) {
    pb_istream_t is = pb_istream_from_buffer(body, len);
    p2b_v1_StateHeader h = p2b_v1_StateHeader_init_zero;
    if (!pb_decode_delimited(&is, p2b_v1_StateHeader_fields, &h)) return Status::corrupt_state;
    if (h.format != kStateFormat) return Status::unsupported_version;
    if (h.scalar_bytes != sizeof(real) || h.config_digest != ag.config_digest_) {
      return Status::state_mismatch;
    }
    const Rng::State current = ag.rng_.state();
    const bool header_ok = h.next_id >= 1 && h.window_len < ag.window_ &&
                           h.outbox_head < ag.outbox_capacity_ &&
                           h.outbox_len <= ag.outbox_capacity_ && h.rng_has_spare <= 1 &&
                           h.rng_deterministic == current.deterministic &&
                           static_cast<double>(h.reports) * ag.epsilon_per_report_ <=
                               ag.epsilon_budget_ * (1.0 + 1e-12);
    if (!header_ok) return Status::corrupt_state;

    const uint32_t d = ag.dim_;
    for (uint32_t a = 0; a < ag.n_actions_; ++a) {
      const ArmView av = ag.arm(a);
      for (uint32_t col = 0; col <= d; ++col) {
        p2b_v1_StateColumn c = p2b_v1_StateColumn_init_zero;
        const uint32_t n = col < d ? d - col : d;
        if (!pb_decode_delimited(&is, p2b_v1_StateColumn_fields, &c) || c.arm != a ||
            c.column != col || c.values_count != n) {
          return Status::corrupt_state;
        }
        for (uint32_t i = 0; i < n; ++i) {
          const bool ok =
              col < d ? factor_entry_ok(c.values[i], i == 0) : vector_entry_ok(c.values[i]);
          if (!ok) return Status::corrupt_state;
        }
        if (!apply) continue;
        if (col < d) {
          real* dst = av.L + static_cast<std::size_t>(col) * d;
          for (uint32_t r = 0; r < d; ++r) dst[r] = r < col ? real(0) : real(c.values[r - col]);
        } else {
          for (uint32_t i = 0; i < d; ++i) av.b[i] = static_cast<real>(c.values[i]);
        }
      }
    }

    auto* slots = ag.block<Agent::PendingSlot>(ag.off_pending_);
    for (uint32_t s = 0; s < ag.pending_capacity_; ++s) {
      p2b_v1_PendingDecision p = p2b_v1_PendingDecision_init_zero;
      if (!pb_decode_delimited(&is, p2b_v1_PendingDecision_fields, &p) || p.context_count != d ||
          p.state > kSlotRewarded || p.action >= ag.n_actions_ || p.code >= ag.n_codes_) {
        return Status::corrupt_state;
      }
      const bool live = p.state != kSlotEmpty;
      if (live && !(p.id > 0 && p.id < h.next_id && p.id % ag.pending_capacity_ == s &&
                    h.next_id - p.id <= ag.pending_capacity_)) {
        return Status::corrupt_state;
      }
      for (uint32_t i = 0; i < d; ++i) {
        if (!fits_real(p.context[i]) || p.context[i] < 0.0) return Status::corrupt_state;
      }
      if (!apply) continue;
      slots[s] = Agent::PendingSlot{p.id, p.action, p.code, p.state, 0};
      real* x = ag.pending_x(s);
      for (uint32_t i = 0; i < d; ++i) x[i] = static_cast<real>(p.context[i]);
    }

    auto* win = ag.block<Agent::WindowEntry>(ag.off_window_);
    for (uint32_t s = 0; s < ag.window_; ++s) {
      p2b_v1_Interaction e = p2b_v1_Interaction_init_zero;
      if (!read_interaction(&is, ag, &e)) return Status::corrupt_state;
      if (apply) win[s] = Agent::WindowEntry{e.code, e.action, e.reward};
    }
    auto* box = ag.block<Report>(ag.off_outbox_);
    for (uint32_t s = 0; s < ag.outbox_capacity_; ++s) {
      p2b_v1_Interaction e = p2b_v1_Interaction_init_zero;
      if (!read_interaction(&is, ag, &e)) return Status::corrupt_state;
      if (apply) box[s] = Report{e.code, e.action, e.reward};
    }
    if (is.bytes_left != 0) return Status::corrupt_state;

    if (apply) {
      Rng::State rs{};
      std::memcpy(rs.s, h.rng_state, sizeof rs.s);
      rs.spare_bits = h.rng_spare_bits;
      rs.has_spare = h.rng_has_spare;
      rs.deterministic = h.rng_deterministic;
      ag.rng_.set_state(rs);
      ag.next_id_ = h.next_id;
      ag.reports_ = h.reports;
      ag.windows_closed_ = h.windows_closed;
      ag.dropped_outbox_full_ = h.dropped_outbox_full;
      ag.model_version_ = h.model_version;
      ag.window_len_ = h.window_len;
      ag.outbox_head_ = h.outbox_head;
      ag.outbox_len_ = h.outbox_len;
      real* work = ag.block<real>(ag.off_scratch_);
      for (uint32_t a = 0; a < ag.n_actions_; ++a) arm_refresh_theta(ag.arm(a), work);
    }
    return Status::ok;
  }

 private:
  static bool write_interaction(pb_ostream_t* os, uint32_t code, uint32_t action, float reward) {
    p2b_v1_Interaction e = p2b_v1_Interaction_init_zero;
    e.code = code;
    e.action = action;
    e.reward = reward;
    return pb_encode_delimited(os, p2b_v1_Interaction_fields, &e);
  }

  static bool read_interaction(pb_istream_t* is, const Agent& ag, p2b_v1_Interaction* e) {
    return pb_decode_delimited(is, p2b_v1_Interaction_fields, e) && e->code < ag.n_codes_ &&
           e->action < ag.n_actions_ && finite_unit(e->reward);
  }
};

Status Agent::saved_size(std::size_t* bytes) const {
  if (bytes == nullptr) return Status::null_pointer;
  pb_ostream_t sizing = PB_OSTREAM_SIZING;
  StateCodec::encode(&sizing, *this);
  *bytes = sizing.bytes_written + kHashBytes;
  return Status::ok;
}

Status Agent::save(void* buf, std::size_t cap, std::size_t* written) const {
  if (buf == nullptr || written == nullptr) return Status::null_pointer;
  std::size_t total = 0;
  saved_size(&total);
  if (cap < total) return Status::buffer_too_small;
  auto* out = static_cast<uint8_t*>(buf);
  pb_ostream_t os = pb_ostream_from_buffer(out, total - kHashBytes);
  if (!StateCodec::encode(&os, *this)) return Status::corrupt_state;  // unreachable: sized above
  if (crypto_.hash(out + total - kHashBytes, kHashBytes, out, total - kHashBytes) != 0) {
    return Status::crypto_failure;
  }
  *written = total;
  return Status::ok;
}

Status Agent::restore(const void* buf, std::size_t len) {
  if (buf == nullptr) return Status::null_pointer;
  const auto* in = static_cast<const uint8_t*>(buf);
  if (len < sizeof kPlainMagic + kHashBytes ||
      std::memcmp(in, kPlainMagic, sizeof kPlainMagic) != 0) {
    return Status::corrupt_state;
  }
  uint8_t digest[kHashBytes];
  if (crypto_.hash(digest, sizeof digest, in, len - kHashBytes) != 0) {
    return Status::crypto_failure;
  }
  if (std::memcmp(digest, in + len - kHashBytes, kHashBytes) != 0) return Status::corrupt_state;
  const uint8_t* body = in + sizeof kPlainMagic;
  const std::size_t body_len = len - sizeof kPlainMagic - kHashBytes;
  const Status st = StateCodec::decode(body, body_len, *this, false);
  if (st != Status::ok) return st;
  return StateCodec::decode(body, body_len, *this, true);
}

Status Agent::save_encrypted(const uint8_t* key, void* buf, std::size_t cap,
                             std::size_t* written) const {
  if (key == nullptr || buf == nullptr || written == nullptr) return Status::null_pointer;
  std::size_t plain = 0;
  saved_size(&plain);
  if (cap < plain + kSealedOverhead) return Status::buffer_too_small;
  auto* out = static_cast<uint8_t*>(buf);
  uint8_t* nonce = out + sizeof kSealedMagic;
  uint8_t* payload = nonce + kAeadNonceBytes;
  std::size_t plain_written = 0;
  Status st = save(payload, cap - sizeof kSealedMagic - kAeadNonceBytes, &plain_written);
  if (st != Status::ok) return st;
  std::memcpy(out, kSealedMagic, sizeof kSealedMagic);
  if (crypto_.random(nonce, kAeadNonceBytes) != 0 ||
      crypto_.aead_encrypt(payload, payload, plain_written, out, sizeof kSealedMagic, nonce, key) !=
          0) {
    return Status::crypto_failure;
  }
  *written = plain_written + kSealedOverhead;
  return Status::ok;
}

Status Agent::restore_encrypted(const uint8_t* key, uint8_t* buf, std::size_t len) {
  if (key == nullptr || buf == nullptr) return Status::null_pointer;
  if (len < kSealedOverhead || std::memcmp(buf, kSealedMagic, sizeof kSealedMagic) != 0) {
    return Status::corrupt_state;
  }
  const uint8_t* nonce = buf + sizeof kSealedMagic;
  uint8_t* payload = buf + sizeof kSealedMagic + kAeadNonceBytes;
  const std::size_t boxed = len - sizeof kSealedMagic - kAeadNonceBytes;
  // A wrong key and tampering look alike by design: both fail the tag.
  if (crypto_.aead_decrypt(payload, payload, boxed, buf, sizeof kSealedMagic, nonce, key) != 0) {
    return Status::corrupt_state;
  }
  return restore(payload, boxed - kAeadTagBytes);
}

Status Agent::encrypted_size(std::size_t* bytes) const {
  if (bytes == nullptr) return Status::null_pointer;
  saved_size(bytes);
  *bytes += kSealedOverhead;
  return Status::ok;
}

}  // namespace p2b
